public import MapGeometry

extension ThinningIndex {
    /// The items of a map tile: the thinning of the tile's map rect on zoom `tile.z`'s grid
    /// (what a 256 × 256 view of exactly the tile shows), keeping those whose position lies
    /// inside the tile. The grid is anchored to the world, so a cell straddling two tiles is the
    /// same cluster in both answers, and its position puts it in one of them: every item of a
    /// zoom is in exactly one tile.
    /// - Parameters:
    ///   - grid: zoom `tile.z`'s grid (a cell size, as a query of the tile's view finds it).
    ///   - limit: most items, as the thin answer cuts them (required annotations first, then by
    ///     count), counted over the cells the tile touches.
    public func items(
        in tile: Tile, grid: ThinningGrid, filter: ThinningFilter = ThinningFilter(), options: ThinningOptions = ThinningOptions(), limit: Int = .max
    ) throws(MissingColumn) -> [(item: ThinnedItem, position: MapPoint)] {
        Self.inside(tile, try thin(tile.mapRect, grid: grid, filter: filter, options: options, limit: limit))
    }

    /// ``items(in:grid:filter:options:limit:)`` with no options.
    public func items(in tile: Tile, grid: ThinningGrid, filter: ThinningFilter = ThinningFilter(), limit: Int = .max) -> [(item: ThinnedItem, position: MapPoint)] {
        Self.inside(tile, thin(tile.mapRect, grid: grid, filter: filter, limit: limit))
    }

    /// The items of `result` whose position lies inside `tile`, with that position.
    private static func inside(_ tile: Tile, _ result: ThinningResult) -> [(item: ThinnedItem, position: MapPoint)] {
        result.items.compactMap { item in
            let position = item.position
            return tile.contains(position) ? (item, position) : nil
        }
    }
}

extension ThinnedItem {
    /// Where the item is drawn: an annotation's map point, a cluster's centroid (x within the world).
    public var position: MapPoint {
        switch self {
        case .annotation(_, let point): point
        case .cluster(let cluster): MapPoint(x: Mercator.wrapX(cluster.centroid.x), y: cluster.centroid.y)
        }
    }
}
