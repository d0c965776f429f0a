import Testing

@testable import StrataModel

/// Which realms a serial queue's event loop serves. Found by the harness's observer runs: a
/// queue context's `turnLoop` moved the thread-bound realm a thaw had opened inside a block on
/// the queue, which the engine (like Realm) never moves, since that realm belongs to the thread
/// running the block, not to the queue.
@Suite struct QueueBlockRealmModelTests {
    // Spec C3, C11, V8: inside a block on a serial queue, `Realm()` without `queue:` is the
    // thread's, with no loop: it cannot observe and the queue's turns do not move it; the
    // queue-confined realm observes and autorefreshes on those turns (V7).
    @Test func aThreadRealmInsideAQueueBlockHasNoLoop() {
        var w = World()
        w.open(World.queue, 1)
        w.ok(World.queue, .open(World.file, confinement: .queue(World.queue), as: 2))
        w.ok(World.queue, .objects(1, .all("Item"), as: 1))
        w.ok(World.queue, .read(1))
        w.ok(World.queue, .objects(2, .all("Item"), as: 2))
        w.ok(World.queue, .read(2))
        let before = w.readVersion(1)
        #expect(
            w.fails(World.queue, .observeCollection(1, action: .none, on: nil, inCancelledTask: false, as: 1))
                == .noRunLoop)
        w.ok(World.queue, .observeCollection(2, action: .none, on: nil, inCancelledTask: false, as: 2))

        w.open(World.thread, 3)
        w.write(World.thread, 3, [item(1)])
        w.ok(World.queue, .turnLoop)
        #expect(w.readVersion(1) == before, "the queue's turn moved the thread's realm")
        #expect(w.readVersion(2) == w.newest(), "the queue's turn left its own realm behind")
        // Spec N8: its initial callback came on that turn, after the move.
        #expect(
            w.events(of: 2).contains { event in
                if case .initial(_, let elements) = event { return elements.count == 1 }
                return false
            })
    }
}
