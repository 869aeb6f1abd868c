public import MapGeometry

extension TrackingState {
    /// The live region subscriptions whose region holds `coordinate` (on the boundary counts), each
    /// with the metres from the point to its boundary, in subscription id order. Candidates come from
    /// the region index; the exact test is the region's own signed distance.
    public func regionsContaining(_ coordinate: Coordinate) -> [(subscription: Subscription, distanceToBoundary: Double)] {
        regions.candidates(at: coordinate).compactMap { id -> (Subscription, Double)? in
            guard let subscription = subscriptions[id], subscription.deletedAt == nil, let rule = subscription.region else { return nil }
            let distance = rule.shape.signedDistance(to: coordinate)
            return distance <= 0 ? (subscription, -distance) : nil
        }
        .sorted { $0.0.id < $1.0.id }
    }

    /// The devices inside region subscription `subscriptionId` as of their last evaluated fix, in device id order.
    public func occupants(of subscriptionId: String) -> [(deviceId: String, progress: SubscriptionProgress)] {
        progress(of: subscriptionId).filter { $0.progress.inside == true }.sorted { $0.deviceId < $1.deviceId }
    }
}
