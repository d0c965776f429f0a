// `sectioned(by:…)`, as RealmSwift spells it (Spec V27): a collection of objects sorted by
// sort descriptors whose first decides the sections, or a List or set of values sorted by
// value; each element's section is the key its key block (or key path) gives.

extension RealmCollection {
    /// The collection sorted by `sortDescriptors`, in sections of the key `keyBlock` gives
    /// each object.
    /// - Precondition: at least one sort descriptor (Realm's message otherwise). The primary
    ///   one should decide the key; else a key comes in more than one run and its section holds
    ///   them all, in collection order.
    public func sectioned<Key: _Persistable & Hashable>(
        sortDescriptors: [SortDescriptor], _ keyBlock: @escaping (Element) -> Key
    ) -> SectionedResults<Key, Element> {
        trapping { () throws(Realm.Error) -> SectionedResults<Key, Element> in
            try .sorting(sortDescriptors, { sorted(by: $0) }, keyBlock)
        }
    }

    /// The collection sorted by the property `keyPath` reads, in a section for each of its
    /// values. A computed property that reads one persisted property sorts by that property.
    public func sectioned<Key: _Persistable & Hashable>(
        by keyPath: KeyPath<Element, Key>, ascending: Bool = true
    ) -> SectionedResults<Key, Element> {
        let name = QueryColumns.keyPathName(of: keyPath, info: ClassInfo.of(Element.self))
        return sectioned(sortDescriptors: [SortDescriptor(keyPath: name, ascending: ascending)]) {
            $0[keyPath: keyPath]
        }
    }

    /// The collection sorted by `sortDescriptors`, in a section for each value `keyPath` reads.
    /// - Precondition: `sortDescriptors` is not empty and its first names the property
    ///   `keyPath` reads (Realm's messages otherwise).
    public func sectioned<Key: _Persistable & Hashable>(
        by keyPath: KeyPath<Element, Key>, sortDescriptors: [SortDescriptor]
    ) -> SectionedResults<Key, Element> {
        trapping { () throws(Realm.Error) -> SectionedResults<Key, Element> in
            try _sectioned(by: keyPath, sortDescriptors: sortDescriptors)
        }
    }

    package func _sectioned<Key: _Persistable & Hashable>(
        by keyPath: KeyPath<Element, Key>, sortDescriptors: [SortDescriptor]
    ) throws(Realm.Error) -> SectionedResults<Key, Element> {
        guard let primary = sortDescriptors.first else { throw Realm.Error.sectionedWithoutSort }
        let name = QueryColumns.keyPathName(of: keyPath, info: ClassInfo.of(Element.self))
        guard primary.keyPath == name else { throw Realm.Error.sectionKeyPathNotPrimarySort }
        return sectioned(sortDescriptors: sortDescriptors) { $0[keyPath: keyPath] }
    }

    /// The collection sorted by `sortDescriptors`, in sections of the key `block` gives.
    public func sectioned<Key: _Persistable & Hashable>(
        by block: @escaping (Element) -> Key, sortDescriptors: [SortDescriptor]
    ) -> SectionedResults<Key, Element> {
        sectioned(sortDescriptors: sortDescriptors, block)
    }
}

extension Results {
    /// `sectioned(sortDescriptors:_:)` whose refusals throw, for the harness.
    package func _sectioned<Key: _Persistable & Hashable>(
        sortDescriptors: [SortDescriptor], _ keyBlock: @escaping (Element) -> Key
    ) throws(Realm.Error) -> SectionedResults<Key, Element> {
        try .sorting(sortDescriptors, { descriptors throws(Realm.Error) in try _sorted(by: descriptors) }, keyBlock)
    }
}

extension List where Element: Object {
    /// `sectioned(sortDescriptors:_:)` whose refusals throw, for the harness.
    package func _sectioned<Key: _Persistable & Hashable>(
        sortDescriptors: [SortDescriptor], _ keyBlock: @escaping (Element) -> Key
    ) throws(Realm.Error) -> SectionedResults<Key, Element> {
        try .sorting(sortDescriptors, { descriptors throws(Realm.Error) in try _sorted(by: descriptors) }, keyBlock)
    }
}

extension SectionedResults where SectionElement: Object {
    /// Realm's refusal of no sort descriptor, then the objects `sorted` gives for
    /// `descriptors`, in sections of the key `keyOf` gives: every object form of `sectioned`.
    static func sorting(
        _ descriptors: [SortDescriptor],
        _ sorted: ([SortDescriptor]) throws(Realm.Error) -> Results<SectionElement>,
        _ keyOf: @escaping (SectionElement) -> Key
    ) throws(Realm.Error) -> SectionedResults {
        guard !descriptors.isEmpty else { throw Realm.Error.sectionedWithoutSortDescriptor }
        return SectionedResults(source: ObjectSectionSource(results: try sorted(descriptors)), keyOf: keyOf)
    }
}

extension List where Element: _Persistable {
    /// The List's values sorted (nulls first; `ascending: false` reverses), in sections of
    /// the key `block` gives each value.
    /// - Precondition: a managed List (Realm sorts only managed collections).
    public func sectioned<Key: _Persistable & Hashable>(
        by block: @escaping (Element) -> Key, ascending: Bool = true
    ) -> SectionedResults<Key, Element> {
        trapping { () throws(Realm.Error) -> SectionedResults<Key, Element> in
            guard binding != nil else { throw Realm.Error.unmanagedListOnly }
            return SectionedResults(source: ValueSectionSource(list: self, ascending: ascending), keyOf: block)
        }
    }
}

extension MutableSet where Element: _Persistable {
    /// The set's values sorted (nulls first; `ascending: false` reverses), in sections of the
    /// key `block` gives each value.
    /// - Precondition: a managed set (Realm sorts only managed collections).
    public func sectioned<Key: _Persistable & Hashable>(
        by block: @escaping (Element) -> Key, ascending: Bool = true
    ) -> SectionedResults<Key, Element> {
        storage.sectioned(by: block, ascending: ascending)
    }
}

extension Realm.Error {
    static let sectionedWithoutSort = misuse("Can not section Results with empty sortDescriptor parameter.")
    static let sectionedWithoutSortDescriptor = misuse(
        "There must be at least one SortDescriptor when using SectionedResults.")
    static let sectionKeyPathNotPrimarySort = misuse("The section key path must match the primary sort descriptor.")
}
