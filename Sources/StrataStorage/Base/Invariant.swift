/// Engine-bug check (Docs/style.md rule 6): traps with `STRATA_CHECKS` (debug, test and fuzz builds),
/// compiles away otherwise. Never use it for anything a corrupt file, the OS or a caller can
/// make false: those throw.
@inline(__always)
func invariant(
    _ condition: @autoclosure () -> Bool, _ message: StaticString,
    file: StaticString = #fileID, line: UInt = #line
) {
    #if STRATA_CHECKS
        if !condition() { fatalError("invariant violated: \(message)", file: file, line: line) }
    #endif
}

/// True when invariant checks are compiled in.
var invariantChecksEnabled: Bool {
    #if STRATA_CHECKS
        return true
    #else
        return false
    #endif
}
