import Testing

extension Trait where Self == TimeLimitTrait {
    /// The time limit of a test that waits on other threads or processes: a hang guard only,
    /// 60 minutes, far above any plausible loaded time. Swift Testing runs tests side by side on
    /// a pool of as many threads as cores, so on a busy 2-core machine a short async test may
    /// wait minutes for a thread while long campaigns hold the pool; its time limit then counts
    /// the wait. A verdict must never depend on the machine's speed (Docs/testing.md).
    public static var hangGuard: Self { .timeLimit(.minutes(60)) }
}
