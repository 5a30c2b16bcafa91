/// What the turn gate says about one tick.
package struct TurnVerdict: Sendable {
    /// The aircraft turns hard (gyro or GNSS track).
    package var turning: Bool
    /// Only the gyro says so while a fresh fix says straight (the `gyro_offset` notice's cost).
    package var gyroOnly: Bool
}

/// Hard-turn gate stage (docs/detection.md §5): the tick-mean gyro vector less its offset, low-passed with τ = 2 s so
/// that turbulence-driven oscillating rates average out (JSBSim 737 / C172 in severe turbulence: ≤ 2.9°/s) while turns
/// and roll-ins (≥ 4°/s) persist; or the GNSS track rate above the same gate.
package struct TurnGate: Sendable {
    private let alpha: Double
    private let gateSquare: Double
    private let gateDegreesPerSecond: Double
    private var turnRate = SIMD3<Double>(0, 0, 0)

    /// A gate at `gateDegreesPerSecond` for ticks of `ticksPerSecond`.
    package init(gateDegreesPerSecond: Double, ticksPerSecond: Int) {
        self.gateDegreesPerSecond = gateDegreesPerSecond
        let gate = gateDegreesPerSecond * .pi / 180
        gateSquare = gate * gate
        alpha = (1 / Double(ticksPerSecond)) / (2 + 1 / Double(ticksPerSecond))
    }

    /// One tick: its mean gyro vector (nil without samples), the offset to remove, the GNSS track rate and whether the
    /// fix is fresh.
    @inline(__always) package mutating func tick(gyroMean: SIMD3<Double>?, offset: SIMD3<Double>, trackRateDegreesPerSecond: Double,
                                                 fixFresh: Bool) -> TurnVerdict {
        if let gyroMean { turnRate += (gyroMean - offset - turnRate) * alpha }
        let gyroTurning = (turnRate * turnRate).sum() > gateSquare
        let trackTurning = trackRateDegreesPerSecond > gateDegreesPerSecond
        return TurnVerdict(turning: gyroTurning || trackTurning, gyroOnly: gyroTurning && !trackTurning && fixFresh)
    }
}

/// Settle stage (docs/detection.md §5): how long each gate keeps ticks invalid after it held — device trouble for
/// `mountSettleSeconds` (and the ticks it marks are "disturbed": no minute or tile holding them is reported), the
/// other gates (turn, ground, manoeuvre, ground vibration, a data gap) for `gateSettleSeconds`.
package struct SettleGates: Sendable {
    private let mountSettleTicks: Int
    private let gateSettleTicks: Int
    private var deviceBlockedUntilTick = Int.min
    private var blockedUntilTick = Int.min

    /// Settle times from the configuration, at `ticksPerSecond`.
    package init(configuration: DetectionConfiguration, ticksPerSecond: Int) {
        mountSettleTicks = Int((configuration.mountSettleSeconds * Double(ticksPerSecond)).rounded())
        gateSettleTicks = Int((configuration.gateSettleSeconds * Double(ticksPerSecond)).rounded())
    }

    /// Device trouble (or a new calibration) on `tick`.
    @inline(__always) package mutating func deviceTrouble(atTick tick: Int) {
        deviceBlockedUntilTick = max(deviceBlockedUntilTick, tick + 1 + mountSettleTicks)
    }

    /// A gate (turn, ground, manoeuvre, ground vibration) held on `tick`.
    @inline(__always) package mutating func gate(atTick tick: Int) {
        blockedUntilTick = max(blockedUntilTick, tick + 1 + gateSettleTicks)
    }

    /// A data gap jumped to `tick` (the first tick after it).
    package mutating func gap(resumingAtTick tick: Int) {
        blockedUntilTick = max(blockedUntilTick, tick + gateSettleTicks)
    }

    /// Whether `tick` is disturbed (device settle) and whether it is valid.
    @inline(__always) package func state(ofTick tick: Int) -> (disturbed: Bool, valid: Bool) {
        let disturbed = tick < deviceBlockedUntilTick
        return (disturbed, !(disturbed || tick < blockedUntilTick))
    }
}
