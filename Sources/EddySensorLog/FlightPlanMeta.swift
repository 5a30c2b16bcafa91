extension FlightMeta {
    /// meta.json's optional `flight_plan` block: what an EFB knows about the flight's levels and air (docs/altitude.md
    /// "Host hints"; docs/sensor-log.md). Levels are flight levels (350 = FL350); times are in the CSV time base.
    public struct FlightPlan: Codable, Sendable, Equatable {
        /// A level cleared from a time on.
        public struct ClearedLevel: Codable, Sendable, Equatable {
            /// From when, seconds (CSV time base).
            public var t: Double
            /// The flight level (350 = FL350).
            public var level: Int
            /// Creates one.
            public init(t: Double, level: Int) { self.t = t; self.level = level }
        }

        /// The ISA deviation at cruise (operational flight plan or outside air temperature), its 1σ and its time.
        public struct ISADeviation: Codable, Sendable, Equatable {
            /// ISA deviation, °C.
            public var celsius: Double
            /// Its 1σ, °C (default 2: an upper-air temperature forecast's error).
            public var sigmaCelsius: Double?
            /// When it held, seconds (CSV time base; default 0).
            public var t: Double?
            /// Creates one.
            public init(celsius: Double, sigmaCelsius: Double? = nil, t: Double? = nil) {
                self.celsius = celsius; self.sigmaCelsius = sigmaCelsius; self.t = t
            }
            enum CodingKeys: String, CodingKey {
                case celsius, t
                case sigmaCelsius = "sigma_celsius"
            }
        }

        /// Planned cruise flight levels.
        public var plannedLevels: [Int]?
        /// Cleared flight levels in time order.
        public var clearedLevels: [ClearedLevel]?
        /// The ISA deviation at cruise.
        public var isaDeviation: ISADeviation?

        /// Creates the block.
        public init(plannedLevels: [Int]? = nil, clearedLevels: [ClearedLevel]? = nil, isaDeviation: ISADeviation? = nil) {
            self.plannedLevels = plannedLevels; self.clearedLevels = clearedLevels; self.isaDeviation = isaDeviation
        }

        enum CodingKeys: String, CodingKey {
            case plannedLevels = "planned_levels"
            case clearedLevels = "cleared_levels"
            case isaDeviation = "isa_deviation"
        }

        /// Checks levels (0…600), times (finite, cleared levels in time order) and the ISA deviation (−60…60 °C, σ > 0).
        package func validate() throws(SensorLogError) {
            func invalid(_ message: String, _ advice: String) -> SensorLogError {
                SensorLogError(kind: .invalidMeta, file: "meta.json", message: message, advice: advice)
            }
            for (index, level) in (plannedLevels ?? []).enumerated() where !(0...600).contains(level) {
                throw invalid("flight_plan.planned_levels[\(index)] \(level) is not a flight level", "Give flight levels 0…600 (350 = FL350)")
            }
            var previous = -Double.infinity
            for (index, cleared) in (clearedLevels ?? []).enumerated() {
                guard (0...600).contains(cleared.level) else {
                    throw invalid("flight_plan.cleared_levels[\(index)].level \(cleared.level) is not a flight level", "Give flight levels 0…600 (350 = FL350)")
                }
                guard cleared.t.isFinite, cleared.t >= previous else {
                    throw invalid("flight_plan.cleared_levels[\(index)].t \(cleared.t) is not finite or not in time order", "List cleared levels in time order, t in the CSV time base")
                }
                previous = cleared.t
            }
            if let isa = isaDeviation {
                guard isa.celsius.isFinite, abs(isa.celsius) <= 60 else {
                    throw invalid("flight_plan.isa_deviation.celsius \(isa.celsius) is outside −60…60 °C", "Give the ISA deviation at cruise in °C (ISA+10 = 10)")
                }
                if let sigma = isa.sigmaCelsius, !(sigma.isFinite && sigma > 0 && sigma <= 30) {
                    throw invalid("flight_plan.isa_deviation.sigma_celsius \(sigma) is not in (0, 30] °C", "Give its 1σ in °C, or leave it out (2 °C)")
                }
                if let t = isa.t, !t.isFinite {
                    throw invalid("flight_plan.isa_deviation.t is not finite", "Give the time it held in the CSV time base, or leave it out (0)")
                }
            }
        }
    }
}
