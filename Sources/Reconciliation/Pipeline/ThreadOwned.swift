/// A non-Sendable resource (a `PostgresConnection`) handed to exactly one thread, which alone uses it
/// from then on. That hand-over is the one place this project uses `@unchecked Sendable` (DESIGN:
/// a resource owned by one thread or serial queue).
final class ThreadOwned<Resource>: @unchecked Sendable {
    let resource: Resource
    init(_ resource: Resource) { self.resource = resource }
}
