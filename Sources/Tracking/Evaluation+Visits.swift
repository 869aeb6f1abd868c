extension Evaluation {
    /// Visits (``StayRun``'s rule, one fix at a time): the fix joins the run under way or ends it
    /// and starts the next. `visitArrival` at the fix that makes the run last `minimumDuration`
    /// (the centre of the run up to it); `visitDeparture` at the first fix outside a run announced
    /// so (the centre of all of its fixes, its last fix's time as departure).
    static func visits(_ rule: StayRule, _ progress: inout SubscriptionProgress, _ fix: LocationFix) -> [Emission] {
        progress.lastEvaluated = fix
        var emissions: [Emission] = []
        if let run = progress.stay, let joined = run.adding(fix, radius: rule.radius) {
            progress.stay = joined
        } else {
            if let run = progress.stay, run.arrived {
                emissions.append(Emission(kind: .visitDeparture, previous: nil, visit: Visit(run, departed: true)))
            }
            progress.stay = StayRun(fix)
        }
        if var run = progress.stay, !run.arrived, run.isStay(rule) {
            run.arrived = true
            progress.stay = run
            emissions.append(Emission(kind: .visitArrival, previous: nil, visit: Visit(run, departed: false)))
        }
        return emissions
    }
}
