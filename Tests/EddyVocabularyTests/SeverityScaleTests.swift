import Testing
@testable import EddyVocabulary

@Suite struct SeverityScaleTests {
    @Test func mediumBandsMatchDesign() {
        let cases: [(Double, Severity)] = [
            (0.0, .none), (0.099, .none), (0.10, .light), (0.149, .light), (0.15, .lightModerate),
            (0.199, .lightModerate), (0.20, .moderate), (0.299, .moderate), (0.30, .moderateSevere),
            (0.449, .moderateSevere), (0.45, .severe), (1.2, .severe),
        ]
        for (edr, expected) in cases {
            #expect(SeverityScale.severity(edr: edr, viewer: .medium) == expected, "edr \(edr)")
        }
    }

    @Test func smallAircraftFeelsWorseThanLarge() {
        #expect(SeverityScale.severity(edr: 0.24, viewer: .small) > SeverityScale.severity(edr: 0.24, viewer: .medium))
        #expect(SeverityScale.severity(edr: 0.24, viewer: .large) < SeverityScale.severity(edr: 0.24, viewer: .medium))
        #expect(SeverityScale.severity(edr: .nan, viewer: .small) == .none)
    }

    @Test func minimumEDRIsTheBandEdge() {
        for viewer in AircraftClass.allCases {
            for severity in Severity.allCases where severity != .none {
                let edge = SeverityScale.minimumEDR(for: severity, viewer: viewer)
                #expect(SeverityScale.severity(edr: edge, viewer: viewer) == severity)
                #expect(SeverityScale.severity(edr: edge * 0.999, viewer: viewer) < severity)
            }
        }
    }

    @Test func icaoClasses() {
        #expect(ICAOTurbulenceClass(edr: 0.05) == .nil_)
        #expect(ICAOTurbulenceClass(edr: 0.12) == .light)
        #expect(ICAOTurbulenceClass(edr: 0.25) == .moderate)
        #expect(ICAOTurbulenceClass(edr: 0.60) == .severe)
    }
}
