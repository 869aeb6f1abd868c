import GRDB

/// Per-tenant feed numbering: 1, 2, 3… for each (tenant, feed), from a counter row advanced in
/// the transaction that writes the entry, so a rolled-back write leaves no hole and one tenant's
/// writes never show as gaps in another's feed.
enum FeedCounter {
    /// The annotation change feed's name in `feedCounter`.
    static let annotations = "annotations"

    /// Advances the counter of (`tenant`, `feed`) and returns the number it issued.
    static let nextSQL = """
        INSERT INTO feedCounter (tenant, feed, last) VALUES (?, ?, 1)
        ON CONFLICT (tenant, feed) DO UPDATE SET last = last + 1 RETURNING last
        """

    /// The next number of (`tenant`, `feed`), inside the writing transaction.
    static func next(_ tenant: String, _ feed: String, in db: Database) throws -> Int64 {
        guard let last = try Int64.fetchOne(db.cachedStatement(sql: nextSQL), arguments: [tenant, feed]) else {
            throw StorageError.corruptRow(table: "feedCounter", id: "\(tenant)/\(feed)")
        }
        return last
    }
}
