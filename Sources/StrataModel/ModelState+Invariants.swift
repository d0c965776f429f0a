// The model's invariants, checked after every step under STRATA_CHECKS and by the exhaustive
// exploration after every transition. A violation is a model bug.

extension ModelState {
    /// Invariants of one state.
    public func invariantViolations() -> [String] {
        var violations: [String] = []
        for (location, file) in files {
            // Spec D5, L1: a pinned version is never reclaimed; the newest and durable are kept.
            for version in activeVersions(of: location) where file.versions[version] == nil {
                violations.append("\(location): active version \(version) was reclaimed")
            }
            if file.versions[file.durable] == nil {
                violations.append("\(location): durable version \(file.durable) missing")
            }
            // Spec D3: what is durable was published (or awaits adoption).
            if file.durable > file.newest, file.adoptable != file.durable {
                violations.append("\(location): durable \(file.durable) > newest \(file.newest)")
            }
            // Spec W1: one writer, and the lock and the transaction agree.
            let writers = realms.filter {
                $0.value.configuration.location == location && $0.value.write != nil
            }
            if writers.count > 1 { violations.append("\(location): \(writers.count) writers") }
            if let writer = writers.first?.key, file.writer != writer {
                violations.append("\(location): writer \(writer) does not hold the lock")
            }
            if let holder = file.writer, realms[holder]?.write == nil {
                violations.append("\(location): lock held by \(holder) with no write")
            }
        }
        for (id, realm) in realms where !realm.isClosed {
            guard let version = realm.readVersion else { continue }
            // Spec V1: a read sees exactly its version, which must still be there.
            if files[realm.configuration.location]?.versions[version] == nil,
                !(realm.isFrozen && (realm.frozenInvalidated || !frozenRealmIsAlive(id)))
            {
                violations.append("\(id): read version \(version) is gone")
            }
            if let write = realm.write, write.startVersion != version {
                violations.append("\(id): write began at \(write.startVersion), reads \(version)")
            }
            if let newest = files[realm.configuration.location]?.newest, version > newest {
                violations.append("\(id): reads \(version) beyond newest \(newest)")
            }
        }
        return violations
    }

    /// Invariants of one transition (`before` → `self`) that no single state shows.
    public func transitionViolations(from before: ModelState, crashed: Bool) -> [String] {
        var violations: [String] = []
        for (location, file) in before.files {
            guard let after = files[location] else { continue }
            // Spec D3: the durable version never goes back, crash or not.
            if after.durable < file.durable {
                violations.append("\(location): durable went back \(file.durable)→\(after.durable)")
            }
            // Versions only grow, except that a crash returns to the durable version.
            if !crashed, after.newest < file.newest {
                violations.append("\(location): newest went back \(file.newest)→\(after.newest)")
            }
        }
        for (id, realm) in before.realms {
            guard let now = realms[id], let old = realm.readVersion, let new = now.readVersion,
                now.epoch == realm.epoch
            else { continue }
            // Spec V2, V3: a realm never moves backwards (a rollback returns to the start).
            if new < old {
                violations.append("\(id): read version went back \(old)→\(new)")
            }
            // Spec F2: a frozen realm never changes.
            if realm.isFrozen, new != old { violations.append("\(id): frozen realm moved") }
        }
        // Spec T2: a resolved reference is never resolved again (stays resolved).
        for (id, reference) in before.references where reference.isResolved {
            if let now = references[id], !now.isResolved {
                violations.append("\(id): resolved reference became unresolved")
            }
        }
        return violations
    }
}
