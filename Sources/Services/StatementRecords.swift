import Storage

/// The small records that many statements read: a row's id (what `INSERT … RETURNING id`
/// and existence checks answer) and a count. Each service's own records sit in its
/// `…Statements` type.
struct RowID: Decodable { let id: Int64 }

/// A `COUNT(*) AS n` or any other single whole number named `n`.
struct RowCount: Decodable { let n: Int64 }

extension SQLConnection {
    /// The id an `INSERT … RETURNING id` gave back; `table` names the table in the error
    /// when it gave none.
    func insertReturningID(_ statement: Statement, into table: String) throws -> Int64 {
        guard let row = try fetchOne(RowID.self, statement) else { throw StoreError.statement("insert into \(table) returned no id") }
        return row.id
    }
}
