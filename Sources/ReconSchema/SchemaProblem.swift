/// One way an application table differs from what the job needs: the table, the column when one is
/// to blame, and what is wrong in words an operator can act on.
public struct SchemaProblem: Sendable, Equatable, CustomStringConvertible {
    public var table: String
    public var column: String?
    public var problem: String

    public init(table: String, column: String? = nil, _ problem: String) {
        self.table = table
        self.column = column
        self.problem = problem
    }

    /// `receipts.user_id: bigint; the job needs text …`
    public var description: String { "\(column.map { "\(table).\($0)" } ?? table): \(problem)" }
}
