import StrataModel

// The body of a generated script: the trace's entries in the model's order, each as a hand-off
// to its context and an expectation, with crashes, power losses and faults where the run had
// them.
extension ScriptRenderer {
    /// One thing the test body does: hand a blocking operation to its context, or perform
    /// (or, for a handed-off one, wait for) an entry's operation.
    enum Event {
        case handOff(TraceEntry)
        case step(TraceEntry)
    }

    /// The entries in the model's order: an entry the model stepped early moves to the point
    /// where it did, a hand-off goes where its wait began (before any step taken there).
    static func ordered(_ trace: [TraceEntry]) -> [Event] {
        var keyed: [(position: Int, phase: Int, event: Event)] = []
        for entry in trace {
            if let began = entry.facts.handedOffAfter { keyed.append((began, 0, .handOff(entry))) }
            if let stepped = entry.facts.steppedAfter {
                keyed.append((stepped, 1, .step(entry)))
            } else {
                keyed.append((entry.index, 2, .step(entry)))
            }
        }
        // Stable: entries at one point keep the trace's order.
        return keyed.enumerated()
            .sorted {
                ($0.element.position, $0.element.phase, $0.offset) < ($1.element.position, $1.element.phase, $1.offset)
            }
            .map(\.element.event)
    }

    /// Renders every step into `lines`; false when one cannot be rendered.
    mutating func renderSteps(_ result: RunResult) -> Bool {
        for event in Self.ordered(result.trace) {
            switch event {
            case .handOff(let entry):
                guard let body = body(entry.step.operation) else { return false }
                lines += [
                    "", "// \(entry.index). \(StepText.describe(entry.step)): waits for the write lock, handed off",
                ]
                lines += closure("let w\(entry.index) = c\(entry.step.context.rawValue).start", body)
                waiting.append(entry.index)
                contexts.insert(entry.step.context)
            case .step(let entry):
                guard renderStep(entry) else { return false }
            }
        }
        if let failed = result.failedCrash {
            guard let body = body(failed.step.operation) else { return false }
            lines += [
                "", "// \(failed.index). \(StepText.describe(failed.step)): the crash image that failed its check",
            ]
            renderCrashingCommit(failed, body: body)
        }
        return true
    }

    private mutating func renderStep(_ entry: TraceEntry) -> Bool {
        var title = "// \(entry.index). \(StepText.describe(entry.step))"
        if let stepped = entry.facts.steppedAfter, stepped < entry.index {
            // The run left it at a switch inside the engine after its linearization point.
            title += " (the model took it before step \(stepped))"
        }
        if entry.draws == nil, case .setAutorefresh = entry.step.operation {
            lines += ["", title + ": the harness's, in the block of the open above"]
            return true
        }
        if case .crashMachine = entry.step.operation {
            lines += ["", title + ": power loss, nothing unsynced survives"]
            lines.append("#expect(script.powerLoss() == .done, \"step \(entry.index): power loss\")")
            settleHandOffs()
            expectRecovered(entry)
            return true
        }
        if entry.facts.handedOffAfter != nil {
            lines += ["", title + ": returns"]
            lines.append("let o\(entry.index) = w\(entry.index).wait()")
            waiting.removeAll { $0 == entry.index }
            expect(entry, "o\(entry.index)")
            return true
        }
        guard let body = body(entry.step.operation) else { return false }
        contexts.insert(entry.step.context)
        lines += ["", title]
        if case .commitWrite(_, _, .machineCrash) = entry.step.operation {
            renderCrashingCommit(entry, body: body)
        } else if let fault = entry.facts.fault {
            lines.append("script.armFault(\(Self.literal(fault)))")
            lines += closure("let o\(entry.index) = c\(entry.step.context.rawValue).run", body)
            lines.append("#expect(script.disarmFault() == .done, \"step \(entry.index): the injected fault struck\")")
            expect(entry, "o\(entry.index)")
        } else {
            lines += closure("let o\(entry.index) = c\(entry.step.context.rawValue).run", body)
            expect(entry, "o\(entry.index)")
        }
        return true
    }

    /// A commit captured at its crash point, then the reboot from the recorded image; for the
    /// failing image of a run, also the checks the crash campaign made (`CrashCampaign.check`).
    private mutating func renderCrashingCommit(_ entry: TraceEntry, body: [String]) {
        contexts.insert(entry.step.context)
        guard let point = entry.facts.capture, let crash = entry.facts.crash else { return }
        lines.append("script.armCapture(\(Self.literal(point)))")
        lines += closure("let o\(entry.index) = c\(entry.step.context.rawValue).run", body)
        expect(entry, "o\(entry.index)")
        lines.append("let crash\(entry.index) = \(Self.literal(crash))")
        lines.append("#expect(script.crash(crash\(entry.index)) == .done, \"step \(entry.index): the crash\")")
        settleHandOffs()
        if entry.draws == nil {
            lines.append("#expect(script.verifyProblems() == [], \"step \(entry.index): verify() after the crash\")")
        }
        expectRecovered(entry)
    }

    /// A crash ends what the other contexts were waiting in; the run did not compare it.
    private mutating func settleHandOffs() {
        for index in waiting {
            lines.append("_ = w\(index).wait()  // ended by the crash; the run did not compare it")
        }
        waiting = []
    }

    private mutating func expectRecovered(_ entry: TraceEntry) {
        guard let recovered = entry.facts.recovered else { return }
        lines.append("let recovered\(entry.index) = script.recoveredContents()")
        expectation(entry.index, .elements(recovered), "recovered\(entry.index)", equal: true)
    }

    private mutating func expect(_ entry: TraceEntry, _ observed: String) {
        expectation(entry.index, entry.expected, observed, equal: false)
    }

    /// `#expect` that the observation `observed` is what the model expected (`Observation.accepts`:
    /// an error's code, and its message containing the model's), or equals it.
    private mutating func expectation(_ index: Int, _ expected: Observation, _ observed: String, equal: Bool) {
        let message = "\"step \(index): engine \\(\(observed))\""
        let literal = Self.literal(expected)
        let check = equal ? "\(observed) == expected\(index)" : "expected\(index).accepts(\(observed))"
        let line = "#expect(Observation\(literal).accepts(\(observed)), \(message))"
        if !equal && line.count + 8 <= 100 {
            lines.append(line)
            return
        }
        if case .elements(let readings) = expected, readings.count > 1 {
            lines.append("let expected\(index): Observation = .elements([")
            lines += readings.map { "    " + Self.literal($0) + "," }
            lines.append("])")
        } else if case .failure(let code, let text) = expected, literal.count > 60 {
            lines.append("let expected\(index): Observation = .failure(")
            lines.append("    code: \(Self.literal(code)), message: \(Self.literal(text)))")
        } else {
            lines.append("let expected\(index): Observation = \(literal)")
        }
        lines.append("#expect(\(check), \(message))")
    }

    /// `opening { s in body }`, on one line when it fits.
    private func closure(_ opening: String, _ body: [String]) -> [String] {
        if body.count == 2, body[1] == "return .done" {
            let line = "\(opening) { s in \(body[0]); return .done }"
            if line.count + 8 <= 100 { return [line] }
        }
        if body.count == 1 {
            let line = "\(opening) { s in \(body[0]) }"
            if line.count + 8 <= 100 { return [line] }
            return ["\(opening) { s in", "    \(body[0])", "}"]
        }
        return ["\(opening) { s in"] + body.map { "    " + $0 } + ["}"]
    }
}
