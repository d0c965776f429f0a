import Testing

@testable import StrataModel

@Suite struct SmokeModelTests {
    @Test func twoThreadsSeeCommitsAfterTheyMove() {
        var world = World()
        let a = world.open(World.main, 1)
        let b = world.open(World.thread, 2)
        #expect(a == 1 && b == 2)
        #expect(world.items(World.thread, 2, handle: 100) == [])
        world.write(World.main, 1, [item(1), item(2)])
        #expect(world.items(World.main, 1, handle: 101) == [1, 2])
        #expect(world.items(World.thread, 2, handle: 102) == [])
        world.ok(World.thread, .turnLoop)
        #expect(world.items(World.thread, 2, handle: 103) == [1, 2])
    }
}
