import CStrataSupport
import Foundation
import Strata
import StrataModel
import StrataStorage

/// What went wrong in a run.
public struct CheckFailure: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// The engine's observation differs from the model's.
        case divergence
        /// A thread blocked where the model says it must not, or every thread waits.
        case deadlock
        /// A crash image recovered wrongly or did not verify.
        case crashImage
        /// A version-stamp rule broke (isolation or real time).
        case versions
        /// The recovered file's contents differ from the model's durable version.
        case recovery
    }
    public var kind: Kind
    public var message: String
    /// The index (in the trace) of the operation at which it was found.
    public var operationIndex: Int

    /// What identifies the failure across shrinking: the kind and the message's first words,
    /// numbers left out (a shrunk run names other threads, realms and handles: c3 and r40
    /// become c2 and r5 when the operations before them go).
    public var signature: String {
        let words = message.split(separator: " ").prefix(4).joined(separator: " ")
        var text = ""
        var inNumber = false
        for character in words {
            if character.isASCII && character.isNumber {
                if !inNumber { text.append("#") }
                inNumber = true
            } else {
                text.append(character)
                inNumber = false
            }
        }
        return "\(kind.rawValue): " + text
    }

    public var description: String { "\(kind.rawValue) at operation \(operationIndex): \(message)" }
}
