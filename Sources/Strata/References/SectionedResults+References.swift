// Sectioned results and their sections are thread-confined as their collection is (Spec V27,
// T): a reference carries the collection's own reference with the key block (and a section's
// key); resolved, it sections the collection resolved in that realm.

/// The parts a reference to sectioned results carries for `Key` and `Element`.
private struct SectioningParts<Key, Element> {
    let keyOf: (Element) -> Key
    let resolve: SectionSourceResolver<Element>
    /// The section's key, for a reference to one section.
    let sectionKey: Key?
}

extension SectionedResults.Storage {
    /// A reference to these sections (or to the section of `sectionKey`).
    func threadSafeHandle(sectionKey: Key?) throws(Realm.Error) -> _ThreadSafeHandle {
        let (base, resolve) = try source.reference()
        let parts = SectioningParts(keyOf: keyOf, resolve: resolve, sectionKey: sectionKey)
        return _ThreadSafeHandle(
            target: .sectioned(base: base.target, sectioning: .init(parts)), fileKey: base.fileKey,
            configuration: base.configuration, source: base.source)
    }

    /// The sections `handle` names, resolved in `realm`, and the section key it names.
    static func resolve(_ handle: _ThreadSafeHandle, in realm: Realm) throws(Realm.Error) -> (
        storage: SectionedResults.Storage, sectionKey: Key?
    )? {
        guard case .sectioned(let base, let sectioning) = handle.target,
            let parts = sectioning.parts as? SectioningParts<Key, SectionElement>
        else { return nil }
        let baseHandle = _ThreadSafeHandle(
            target: base, fileKey: handle.fileKey, configuration: handle.configuration, source: handle.source)
        guard let source = try parts.resolve(baseHandle, realm) else { return nil }
        return (SectionedResults.Storage(source: source, keyOf: parts.keyOf), parts.sectionKey)
    }
}

extension SectionedResults: ThreadConfined {
    public func _threadSafeHandle() throws(Realm.Error) -> _ThreadSafeHandle {
        try storage.threadSafeHandle(sectionKey: nil)
    }

    public static func _resolve(_ handle: _ThreadSafeHandle, in realm: Realm) throws(Realm.Error) -> Self? {
        guard let (storage, sectionKey) = try Storage.resolve(handle, in: realm), sectionKey == nil else { return nil }
        return SectionedResults(storage: storage)
    }
}

extension ResultsSection: ThreadConfined {
    public func _threadSafeHandle() throws(Realm.Error) -> _ThreadSafeHandle {
        try parent.threadSafeHandle(sectionKey: key)
    }

    public static func _resolve(_ handle: _ThreadSafeHandle, in realm: Realm) throws(Realm.Error) -> Self? {
        guard let (storage, sectionKey) = try Parent.resolve(handle, in: realm), let sectionKey else { return nil }
        return ResultsSection(parent: storage, key: sectionKey)
    }
}
