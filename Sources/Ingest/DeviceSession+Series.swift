import HealthModel
import SourceEvents

/// The open series' life: the idle timeout and maximum duration, checkpoints, and finishing.
extension DeviceSession {
    /// Idle timeout and maximum duration, checked against a clock tick.
    mutating func tick(now: Timestamp, effects: inout SessionEffects) {
        guard !series.isEmpty, let last = time.lastArrival else { return }
        let t = time.shifted(now)
        guard t >= last else { return }
        if t - last > settings.gapThreshold { releaseHeld(at: t, effects: &effects) }
        if t - last > settings.idleTimeout {
            finish(.idle, at: t, effects: &effects)
            timeline.breakChain(.notificationGap)
        } else if let opened = series.openedAt, t - opened >= settings.maxDuration {
            finish(.maxDuration, at: t, effects: &effects)
        }
    }

    /// When (on the source's monotonic clock) `tick` would finish the open series: the idle timeout or the
    /// maximum duration, whichever comes first; `nil` with no open series.
    var tickDeadline: Double? {
        guard !series.isEmpty, let last = time.lastArrival else { return nil }
        var deadline = last + settings.idleTimeout
        if let opened = series.openedAt { deadline = min(deadline, opened + settings.maxDuration) }
        return deadline - time.shift + 0.001  // tick needs "past", not "at"
    }

    /// The open series as samples with their data so far (for queries while capturing; changes nothing).
    func openSeries(now: Timestamp) -> [Sample] {
        series.isEmpty ? [] : series.snapshot(at: time.effective(now), context: context)
    }

    /// What a checkpoint hands the store of the open series (whole, or what they appended since the last one),
    /// if they changed since the last one.
    mutating func checkpoint(now: Timestamp) -> [SeriesCheckpoint]? {
        guard needsCheckpoint else { return nil }
        needsCheckpoint = false
        guard !series.isEmpty else { return nil }
        return series.checkpoint(at: time.effective(now), clock: clock, gapThreshold: settings.gapThreshold)
    }

    /// Finishes the open series (shutdown, end of a replay). The next beat, if any, is flagged.
    mutating func finishAll(_ reason: FinishReason, at: Timestamp, effects: inout SessionEffects) {
        finish(reason, at: time.effective(at), effects: &effects)
        timeline.breakChain(.connection)
    }

    mutating func finish(_ reason: FinishReason, at time: Double, effects: inout SessionEffects) {
        releaseHeld(at: time, effects: &effects)
        timeline.closeLateStretch()
        contest = nil
        guard let batch = series.finish(reason: reason, at: time, context: context) else { return }
        seriesFinished += batch.closingCheckpoints.count
        effects.batches.append((batch, reason))
        for sample in batch.samples {
            effects.live.append(.seriesFinished(address: address, uuid: sample.uuid,
                                                typeIdentifier: sample.typeIdentifier, reason: reason))
        }
        logger.debug("series finished", metadata: ["reason": "\(reason.rawValue)", "samples": "\(batch.samples.count)"])
    }
}
