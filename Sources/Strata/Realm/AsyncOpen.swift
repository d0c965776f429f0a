import Dispatch
import Foundation
import Synchronization

/// A pending `Realm.asyncOpen`. Sendable: `cancel()` may come from any thread.
public final class AsyncOpenTask: Sendable {
    private let cancelled = Atomic<Bool>(false)

    init() {}

    /// The callback will not be called if it has not started yet (Realm: "the completion block
    /// for this async open will never be called").
    public func cancel() { cancelled.store(true, ordering: .releasing) }

    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }
}

extension Realm {
    /// Opens the realm of `configuration` without blocking the caller (Spec X7): the file is
    /// opened, recovered and checked on a background queue, then `callback` runs on
    /// `callbackQueue` with a realm confined to that queue (the main thread's realm for
    /// `.main`), or with the open's error. A read-only open of a missing file calls back with
    /// `.fileNotFound`, creates nothing and caches no instance.
    ///
    /// - Parameters:
    ///   - configuration: the realm to open.
    ///   - callbackQueue: a serial queue, or `.main`.
    ///   - callback: receives the realm, confined to `callbackQueue`, or the error that stopped
    ///     the open.
    /// - Returns: a task whose `cancel()` stops a callback that has not started.
    @discardableResult
    public static func asyncOpen(
        configuration: Configuration = .defaultConfiguration,
        callbackQueue: DispatchQueue = .main,
        callback: @escaping @Sendable (Result<Realm, Swift.Error>) -> Void
    ) -> AsyncOpenTask {
        let task = AsyncOpenTask()
        DispatchQueue.global().async {
            // The slow part off the caller's context; the file stays open (and cached for
            // the callback's open) until the callback has run.
            let opened: Result<RealmFile, Realm.Error>
            do throws(Realm.Error) {
                opened = .success(try RealmFile.open(configuration))
            } catch {
                opened = .failure(error)
            }
            callbackQueue.async {
                defer { withExtendedLifetime(opened) {} }
                guard !task.isCancelled else { return }
                switch opened {
                case .failure(let error):
                    callback(.failure(error))
                case .success:
                    do {
                        callback(.success(try Realm(configuration: configuration, queue: callbackQueue)))
                    } catch {
                        callback(.failure(error))
                    }
                }
            }
        }
        return task
    }
}

extension Realm {
    /// Spec X7, for Swift concurrency: opens the file off the caller (recovered and checked on
    /// a background queue), then returns the realm of the caller's context: the actor's
    /// (Spec C15) or the main actor's.
    public static func asyncOpen(
        configuration: Configuration = .defaultConfiguration,
        isolation: isolated (any Actor)? = #isolation
    ) async throws -> Realm {
        let file = try await openInBackground(configuration)
        // The file stays open (cached for this open) until the realm has it.
        return try withExtendedLifetime(file) { () throws(Realm.Error) -> Realm in
            guard let isolation else { return Realm(core: try RealmCore.open(configuration, queue: nil)) }
            return Realm(core: try RealmCore.open(configuration, actor: isolation))
        }
    }

    /// When to download a synchronized realm's data before opening it. Strata has no sync:
    /// every value opens the local file as `.never` does.
    public enum OpenBehavior: Sendable {
        /// Return the realm as the synchronous initializer would.
        case never
        /// Download everything first (synchronized realms only).
        case always
        /// Download the first time on this device (synchronized realms only).
        case once
    }

    /// Spec C15: opens the realm of `configuration` confined to `actor`: usable only in the
    /// actor's isolation, with its notifications, autorefresh and async-write completions run
    /// there. The file is opened, recovered and checked off the actor first (Spec X7). The
    /// caller need not be isolated to `actor`, but only code in the actor's isolation can use
    /// the realm:
    ///
    /// ```swift
    /// actor Counter {
    ///     var realm: Realm?
    ///     func start() async throws { realm = try await Realm(actor: self) }
    /// }
    /// ```
    /// - Throws: `Realm.Error` for the open; `CancellationError` in a cancelled task.
    public init<A: Actor>(
        configuration: Configuration = .defaultConfiguration, actor: A,
        downloadBeforeOpen: OpenBehavior = .never
    ) async throws {
        if Task.isCancelled { throw CancellationError() }
        let file = try await Realm.openInBackground(configuration)
        let opened = try await Realm.openConfined(configuration, to: actor)
        core = withExtendedLifetime(file) { opened.core }
    }

    /// Spec C15: the realm of `configuration` isolated to the calling actor (the main actor's
    /// realm on the main actor), opened off the actor first (Spec X7).
    /// - Throws: `Realm.Error` for the open; `CancellationError` in a cancelled task.
    public static func open(
        configuration: Configuration = .defaultConfiguration,
        _isolation actor: isolated any Actor = #isolation,
        downloadBeforeOpen: OpenBehavior = .never
    ) async throws -> Realm {
        if Task.isCancelled { throw CancellationError() }
        let file = try await openInBackground(configuration)
        return try withExtendedLifetime(file) { () throws(Realm.Error) -> Realm in
            Realm(core: try RealmCore.open(configuration, actor: actor))
        }
    }

    /// The main actor's realm of `configuration` (the main thread's), opened off the main
    /// thread first (Spec X7).
    @MainActor
    public init(configuration: Configuration = .defaultConfiguration, downloadBeforeOpen: OpenBehavior) async throws {
        self = try await Realm.open(configuration: configuration, downloadBeforeOpen: downloadBeforeOpen)
    }

    /// A realm core made in `actor`'s isolation for a caller that may be elsewhere: the core
    /// never leaves the actor's use (every entry point checks its confinement, Spec C15).
    private struct ConfinedCore: @unchecked Sendable {
        let core: RealmCore
    }

    private static func openConfined<A: Actor>(
        _ configuration: Configuration,
        to actor: isolated A
    ) throws(Realm.Error) -> ConfinedCore {
        ConfinedCore(core: try RealmCore.open(configuration, actor: actor))
    }

    /// Opens the file of `configuration` on a background queue; the caller keeps it open (and
    /// so cached) until its realm has it.
    private static func openInBackground(_ configuration: Configuration) async throws -> RealmFile {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<RealmFile, Swift.Error>) in
            DispatchQueue.global().async {
                do throws(Realm.Error) {
                    continuation.resume(returning: try RealmFile.open(configuration))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
