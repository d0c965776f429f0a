import Foundation

/// The change of a sectioned collection between two layouts, from the change of the sorted
/// collection under it (Spec V27), as realm-core reports it:
/// - sections whose key is new are inserted, those whose key is gone deleted (by index);
/// - each deleted element is a deletion at its old path, unless its whole section went; each
///   inserted element an insertion at its new path;
/// - a modified element (modified and kept by the collection's change) stays a modification
///   only when it has the same item index in the old and the new section of its key; else
///   it is a deletion at its old path and an insertion at its new (it may have moved between
///   sections). A modified element whose old section went is reported by that section alone.
///
/// With `onlyKey` (a `ResultsSection`'s observer), only that key's section and elements count.
struct SectionChange: Equatable {
    var deletions: [IndexPath] = []
    var insertions: [IndexPath] = []
    var modifications: [IndexPath] = []
    var sectionsToInsert = IndexSet()
    var sectionsToDelete = IndexSet()

    var isEmpty: Bool {
        deletions.isEmpty && insertions.isEmpty && modifications.isEmpty && sectionsToInsert.isEmpty
            && sectionsToDelete.isEmpty
    }

    init() {}

    init<Key: _RealmValue>(
        from old: SectionLayout<Key>, to new: SectionLayout<Key>,
        deletions: [Int], insertions: [Int], modifications: [Int], onlyKey: Key? = nil
    ) {
        // Each modification's new position: the kept elements pair up in order.
        let deleted = Set(deletions)
        let inserted = Set(insertions)
        var newPositionOf: [Int: Int] = [:]
        let modified = Set(modifications)
        var newPosition = 0
        for oldPosition in old.paths.indices where !deleted.contains(oldPosition) {
            while inserted.contains(newPosition) { newPosition += 1 }
            if modified.contains(oldPosition) { newPositionOf[oldPosition] = newPosition }
            newPosition += 1
        }

        var deletedRows: [Int: Set<Int>] = [:]
        var insertedRows: [Int: Set<Int>] = [:]
        var modifiedRows: [Int: Set<Int>] = [:]
        var modifiedNewRows: [Int: Set<Int>] = [:]

        let oldSection = onlyKey.map { old.section(of: $0) }
        let newSection = onlyKey.map { new.section(of: $0) }
        // Whether a section of the old (or new) layout is reported.
        func reportsOld(_ section: Int) -> Bool { oldSection.map { $0 == section } ?? true }
        func reportsNew(_ section: Int) -> Bool { newSection.map { $0 == section } ?? true }

        if let onlyKey {
            switch (old.section(of: onlyKey), new.section(of: onlyKey)) {
            case (nil, nil): return
            case (nil, let section?): sectionsToInsert.insert(section)
            case (let section?, nil): sectionsToDelete.insert(section)
            default: break
            }
        } else {
            for (section, key) in new.keys.enumerated() where old.section(of: key) == nil {
                sectionsToInsert.insert(section)
            }
            for (section, key) in old.keys.enumerated() where new.section(of: key) == nil {
                sectionsToDelete.insert(section)
            }
        }

        for position in insertions where new.paths.indices.contains(position) {
            let path = new.paths[position]
            if reportsNew(path.section) { insertedRows[path.section, default: []].insert(path.item) }
        }
        for position in modifications where old.paths.indices.contains(position) {
            let path = old.paths[position]
            if reportsOld(path.section) { modifiedRows[path.section, default: []].insert(path.item) }
            if let newPosition = newPositionOf[position], new.paths.indices.contains(newPosition) {
                let newPath = new.paths[newPosition]
                if reportsNew(newPath.section) { modifiedNewRows[newPath.section, default: []].insert(newPath.item) }
            }
        }
        // A section filter reports deletions inside its section only while the section lives.
        let reportsDeletions = onlyKey.map { new.section(of: $0) != nil } ?? true
        for position in deletions where reportsDeletions && old.paths.indices.contains(position) {
            let path = old.paths[position]
            if reportsOld(path.section) && !sectionsToDelete.contains(path.section) {
                deletedRows[path.section, default: []].insert(path.item)
            }
        }

        // Modified in place, or moved: see the type's comment.
        for (section, rows) in modifiedRows {
            guard let newSection = new.section(of: old.keys[section]) else {
                modifiedRows[section] = nil
                continue
            }
            let stillThere = rows.intersection(modifiedNewRows[newSection] ?? [])
            modifiedNewRows[newSection]?.subtract(stillThere)
            let moved = rows.subtracting(stillThere)
            if !moved.isEmpty { deletedRows[section, default: []].formUnion(moved) }
            modifiedRows[section] = stillThere
        }
        for (section, rows) in modifiedNewRows { insertedRows[section, default: []].formUnion(rows) }

        self.deletions = Self.paths(deletedRows)
        self.insertions = Self.paths(insertedRows)
        self.modifications = Self.paths(modifiedRows)
    }

    /// The index paths of `rows` by section, ascending.
    private static func paths(_ rows: [Int: Set<Int>]) -> [IndexPath] {
        rows.keys.sorted().flatMap { section in
            (rows[section] ?? []).sorted().map { IndexPath(item: $0, section: section) }
        }
    }
}

/// One sectioned observer's state: the layout it last reported, so that each change of the
/// collection under it becomes a `SectionChange`. Touched only by the observer's callbacks
/// (one context, or one serial queue), hence `@unchecked Sendable`.
final class SectionChangeTracker<Key: _Persistable & Hashable>: @unchecked Sendable {
    private let onlyKey: Key?
    private var previous = SectionLayout<Key>()

    init(onlyKey: Key?) { self.onlyKey = onlyKey }

    /// A commit skipped the observer (Spec N4): the collection's next change is from `layout`'s
    /// contents.
    func rebaseline(_ layout: SectionLayout<Key>) { previous = layout }

    /// Works out the sections of `change`'s collection and sends what changed: always the
    /// initial callback; an update when something changed (for a section filter, in its
    /// section). A collection that can no longer be read (its realm invalidated, its owner
    /// deleted) ends the callbacks, as `SectionedResultsChange` has no error case.
    func deliver<Element>(
        _ change: SectionSourceChange<Element>,
        layout: (any SectionSource<Element>) throws(Realm.Error) -> SectionLayout<Key>,
        _ send: (SectionedResultsChange<Void>) -> Void
    ) {
        guard let source = change.source, let current = try? layout(source) else { return }
        defer { previous = current }
        switch change {
        case .initial: send(.initial(()))
        case .update(_, let deletions, let insertions, let modifications):
            let sections = SectionChange(
                from: previous, to: current, deletions: deletions, insertions: insertions,
                modifications: modifications, onlyKey: onlyKey)
            if onlyKey != nil && sections.isEmpty { return }
            send(
                .update(
                    (), deletions: sections.deletions, insertions: sections.insertions,
                    modifications: sections.modifications, sectionsToInsert: sections.sectionsToInsert,
                    sectionsToDelete: sections.sectionsToDelete))
        case .error: return
        }
    }
}
