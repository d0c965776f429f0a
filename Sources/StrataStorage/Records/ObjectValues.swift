/// An object found by its primary key (`VersionReading.objectValues`): its identity, and its
/// values in column order unless one of them lies in overflow pages.
public struct ObjectValues: Sendable {
    /// The object's key and incarnation.
    public let identity: ObjectIdentity
    /// The decoded values, in column order; nil when a value lies in overflow pages.
    public let values: [Value]?
}
