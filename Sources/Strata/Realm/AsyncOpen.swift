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
    /// - Parameter callbackQueue: a serial queue, or `.main`.
    @discardableResult
    public static func asyncOpen(configuration: Configuration = .defaultConfiguration,
                                 callbackQueue: DispatchQueue = .main,
                                 callback: @escaping @Sendable (Result<Realm, Swift.Error>) -> Void) -> AsyncOpenTask {
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
    public static func asyncOpen(configuration: Configuration = .defaultConfiguration,
                                 isolation: isolated (any Actor)? = #isolation) async throws -> Realm {
        let file = try await openInBackground(configuration)
        // The file stays open (cached for this open) until the realm has it.
        return try withExtendedLifetime(file) { () throws(Realm.Error) -> Realm in
            guard let isolation else { return Realm(core: try RealmCore.open(configuration, queue: nil)) }
            return Realm(core: try RealmCore.open(configuration, actor: isolation))
        }
    }

    /// Spec C15: opens the realm of `configuration` confined to `actor`: usable only in the
    /// actor's isolation, with its notifications, autorefresh and async-write completions run
    /// there. The file is opened, recovered and checked off the actor first (Spec X7). Called
    /// in the actor's isolation, so the realm never leaves it:
    ///
    /// ```swift
    /// actor Counter {
    ///     var realm: Realm?
    ///     func start() async throws { realm = try await Realm(actor: self) }
    /// }
    /// ```
    public init<A: Actor>(configuration: Configuration = .defaultConfiguration, actor: isolated A) async throws {
        let file = try await Realm.openInBackground(configuration)
        core = try withExtendedLifetime(file) { () throws(Realm.Error) -> RealmCore in
            try RealmCore.open(configuration, actor: actor)
        }
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
