extension Region {
    /// A region `latitudinalMeters` tall and `longitudinalMeters` wide around `center`
    /// (`MKCoordinateRegionMakeWithDistance`), on WGS84: degrees of latitude from the
    /// meridional radius M(φ), degrees of longitude from the parallel's radius N(φ) cos φ.
    /// Spans are capped at 180° and 360°.
    public init(center: Coordinate, latitudinalMeters: Double, longitudinalMeters: Double) {
        let ellipsoid = Ellipsoid.wgs84
        let degreesPerRadian = 180 / Double.pi
        let latitudeDelta = latitudinalMeters / ellipsoid.meridionalRadius(atLatitude: center.latitude) * degreesPerRadian
        let parallel = ellipsoid.parallelRadius(atLatitude: center.latitude)
        let longitudeDelta = parallel > 0 ? longitudinalMeters / parallel * degreesPerRadian : 360
        self.init(
            center: center,
            span: Span(latitudeDelta: min(latitudeDelta, 180), longitudeDelta: min(longitudeDelta, 360))
        )
    }

    /// The region a view of `size` shows when asked for this one (`regionThatFits:`): the shorter
    /// side of the region's map rect grows to the view's aspect, around the same map-rect center.
    public func fitting(_ size: ScreenSize) -> Region {
        Region(MapRect(self).fitting(aspectOf: size))
    }
}

extension MapRect {
    /// This rect with its shorter side grown so that width : height equals the view's, around the
    /// same center. A rect with no area stays as it is.
    public func fitting(aspectOf size: ScreenSize) -> MapRect {
        let viewAspect = size.width / size.height
        var width = self.size.width, height = self.size.height
        guard width > 0 || height > 0 else { return self }
        if width < height * viewAspect {
            width = height * viewAspect
        } else {
            height = width / viewAspect
        }
        return MapRect(minX: midX - width / 2, minY: midY - height / 2, maxX: midX + width / 2, maxY: midY + height / 2)
    }
}
