import StrataStorage

/// What deleting objects does to a collection column that links to them (Spec W13): a List's
/// or a set's entries go, a Map's values become null and its keys stay (a Map of non-optional
/// objects, which Realm refuses to declare, loses the key instead: no value may be null there).
enum DeletedLinks {
    /// `elements` without the links `isGone` names; nil when none is gone.
    static func removing(
        from elements: [Value], isMap: Bool, nullable: Bool = true, where isGone: (Link) -> Bool
    ) -> [Value]? {
        if isMap {
            var changed = false
            var kept: [Value] = []
            kept.reserveCapacity(elements.count)
            for index in 0..<(elements.count / 2) {
                var value = elements[2 * index + 1]
                if case .link(let link) = value, isGone(link) {
                    changed = true
                    guard nullable else { continue }
                    value = .null
                }
                kept.append(elements[2 * index])
                kept.append(value)
            }
            return changed ? kept : nil
        }
        let kept = elements.filter {
            if case .link(let link) = $0 { return !isGone(link) }
            return true
        }
        return kept.count == elements.count ? nil : kept
    }
}
