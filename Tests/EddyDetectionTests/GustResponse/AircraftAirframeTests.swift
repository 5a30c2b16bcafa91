import Foundation
import Testing
@testable import EddyDetection
@testable import EddyVocabulary

@Suite struct AircraftAirframeTests {
    /// The planform formula against published whole-airplane lift slopes of two straight-wing types:
    /// Navion (Nelson, Flight Stability and Automatic Control, 2nd ed., App. B: S = 184 ft², b = 33.4 ft, C_Lα = 4.44 /rad)
    /// and Cessna 172 (Roskam, Airplane Flight Dynamics Part I, App. B: S = 174 ft², b = 35.83 ft, C_Lα = 4.6 /rad, M 0.158).
    @Test func liftSlopeAgainstPublishedValues() {
        for (name, areaSquareFeet, spanFeet, published) in [("Navion", 184.0, 33.4, 4.44), ("C172", 174.0, 35.83, 4.6)] {
            let aspectRatio = spanFeet * spanFeet / areaSquareFeet
            let slope = LiftCurveSlope.datcom(aspectRatio: aspectRatio, halfChordSweepDegrees: 0, mach: 0.158)
            #expect(abs(slope / published - 1) < 0.03, "\(name): C_Lα \(slope) against \(published)")
        }
    }

    /// Helmbold's limits: 2π for an infinite wing, πA/2 (lifting-line slender wing) for a very low aspect ratio;
    /// sweep lowers and Mach raises the slope (DATCOM), and κ = 1, Λ = 0, M = 0 is Helmbold.
    @Test func liftSlopeLimitsAndTrends() {
        #expect(abs(LiftCurveSlope.helmbold(aspectRatio: 1e6) / (2 * Double.pi) - 1) < 1e-3)
        #expect(abs(LiftCurveSlope.helmbold(aspectRatio: 0.01) / (Double.pi * 0.01 / 2) - 1) < 1e-2)
        #expect(abs(LiftCurveSlope.datcom(aspectRatio: 8, halfChordSweepDegrees: 0, mach: 0, kappa: 1) - LiftCurveSlope.helmbold(aspectRatio: 8)) < 1e-12)
        let straight = LiftCurveSlope.datcom(aspectRatio: 9.5, halfChordSweepDegrees: 0, mach: 0.78)
        let swept = LiftCurveSlope.datcom(aspectRatio: 9.5, halfChordSweepDegrees: 25, mach: 0.78)
        let slow = LiftCurveSlope.datcom(aspectRatio: 9.5, halfChordSweepDegrees: 25, mach: 0.2)
        #expect(swept < straight && slow < swept)
    }

    /// Wing loading from the table's mass and area: a 737-800 at MTOW (79,010 kg on 124.6 m²) is 6,218 N/m², the
    /// table's typical mass (0.85 MTOW) 5,286 N/m²; an ASK 21 with two aboard (540 kg on 17.95 m²) 295 N/m².
    @Test func wingLoading() throws {
        let b738 = try #require(AircraftAirframeTable.airframe(designator: "b738 "))
        #expect(abs(b738.maximumTakeoffMassKilograms * StandardAtmosphere.gravity / b738.wingAreaSquareMeters - 6_218) < 2)
        #expect(abs(b738.wingLoadingNewtonsPerSquareMeter - 5_286) < 2)
        #expect(abs(b738.aspectRatio - 10.29) < 0.01)
        let ask21 = try #require(AircraftAirframeTable.airframe(designator: "AS21"))
        #expect(abs(ask21.wingLoadingNewtonsPerSquareMeter - 295) < 1)
        #expect(abs(ask21.cruiseMach - 0.083) < 0.002)
    }

    /// Every row is physical (plausible aspect ratio, mass fraction in (0.5, 1], C_Lα between 4 /rad and 2π/β) and
    /// every airframe belongs to a type in the designator table.
    @Test func everyRowIsPlausible() {
        for row in AircraftAirframeTable.all {
            #expect(AircraftTypeTable.type(designator: row.designator) != nil, "\(row.designator) not in AircraftTypeTable")
            #expect(row.aspectRatio > 5 && row.aspectRatio < 30, "\(row.designator): A \(row.aspectRatio)")
            #expect(row.typicalMassFraction > 0.5 && row.typicalMassFraction <= 1, "\(row.designator)")
            // above 4 /rad, below the compressible 2D slope 2π/β (Prandtl–Glauert)
            let ceiling = 2 * Double.pi / (1 - row.cruiseMach * row.cruiseMach).squareRoot()
            #expect(row.liftCurveSlopePerRadian > 4 && row.liftCurveSlopePerRadian < ceiling, "\(row.designator): \(row.liftCurveSlopePerRadian)")
            #expect(row.cruiseMach < 0.9, "\(row.designator): M \(row.cruiseMach)")
        }
        for type in AircraftTypeTable.all {
            #expect(AircraftAirframeTable.airframe(designator: type.designator) != nil, "\(type.designator) has no airframe")
        }
    }

    /// GLID (Doc 8643's designator for a glider of no designated type) flies the generic single-seat glider — 330 kg on
    /// 10.1 m², 320 N/m², about half a C172's — not the light-aircraft class model, and the tow-surge test applies to it.
    @Test func anUndesignatedGliderFliesTheGenericGlider() throws {
        let generic = try #require(AircraftAirframeTable.airframe(designator: "glid"))
        #expect(abs(generic.wingLoadingNewtonsPerSquareMeter - 320.4) < 0.5)
        let parameters = AircraftResponseParameters.forType(designator: "GLID", aircraftClass: .small)
        #expect(parameters.wingLoadingNewtonsPerSquareMeter == generic.wingLoadingNewtonsPerSquareMeter)
        // About half the light-aircraft class model's (a C172's 631 N/m²).
        #expect(parameters.wingLoadingNewtonsPerSquareMeter < 0.55 * AircraftResponseParameters.forClass(.small).wingLoadingNewtonsPerSquareMeter)
        #expect(AircraftTypeTable.type(designator: "GLID")?.isGlider == true)
        #expect(DetectionConfiguration(aircraftClass: .small, typeDesignator: "GLID").manoeuvreSurgeCorrelation.isFinite)
    }

    /// A known type gets its own W/S, C_Lα and cruise; an unknown type, no type, or a class that disagrees with the
    /// type gets the class; a glider's plunge time constant is a fifth of the class's at the same speed and height.
    @Test func parametersForType() throws {
        let glider = AircraftResponseParameters.forType(designator: "AS21", aircraftClass: .small)
        let ask21 = try #require(AircraftAirframeTable.airframe(designator: "AS21"))
        #expect(glider.wingLoadingNewtonsPerSquareMeter == ask21.wingLoadingNewtonsPerSquareMeter)
        #expect(glider.liftCurveSlopePerRadian == ask21.liftCurveSlopePerRadian)
        #expect(glider.nominalTrueAirspeedMetersPerSecond == ask21.cruiseTrueAirspeedMetersPerSecond)
        let small = AircraftResponseParameters.forClass(.small)
        #expect(glider.bandLowHz == small.bandLowHz && glider.responseGain == small.responseGain)
        #expect(AircraftResponseParameters.forType(designator: "ZZZZ", aircraftClass: .small) == small)
        #expect(AircraftResponseParameters.forType(designator: nil, aircraftClass: .small) == small)
        #expect(AircraftResponseParameters.forType(designator: "B738", aircraftClass: .small) == small)
        let rho = StandardAtmosphere.densityKilogramsPerCubicMeter(altitudeMeters: 1_524)
        let gliderTau = PlungeResponse(parameters: glider, trueAirspeedMetersPerSecond: 28, densityKilogramsPerCubicMeter: rho)
        let classTau = PlungeResponse(parameters: small, trueAirspeedMetersPerSecond: 28, densityKilogramsPerCubicMeter: rho)
        #expect(gliderTau.timeConstantSeconds < 0.5 * classTau.timeConstantSeconds)
    }

    /// The class's W/S and C_Lα are its representative type's, so a simulated flight (class model) replayed under the
    /// type its meta.json names (C172 / B738 / B77W) uses the same response.
    @Test func classIsItsRepresentativeType() {
        for cls in [AircraftClass.small, .medium, .large] {
            let designator = AircraftAirframeTable.representativeDesignator(cls)
            let byType = AircraftResponseParameters.forType(designator: designator, aircraftClass: cls)
            let byClass = AircraftResponseParameters.forClass(cls)
            #expect(byType.wingLoadingNewtonsPerSquareMeter == byClass.wingLoadingNewtonsPerSquareMeter)
            #expect(byType.liftCurveSlopePerRadian == byClass.liftCurveSlopePerRadian)
            #expect(AircraftTypeTable.type(designator: designator)?.aircraftClass == cls)
        }
    }
}
