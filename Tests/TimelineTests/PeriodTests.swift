import Testing
import Timeline

@Suite struct PeriodTests {
    @Test(arguments: [
        ("30d", 2_592_000), ("12h", 43_200), ("90m", 5_400), ("3600s", 3_600), ("2w", 1_209_600), (" 7D ", 604_800),
        ("P30D", 2_592_000), ("PT12H", 43_200), ("P1DT6H", 108_000), ("PT90M", 5_400), ("PT1H30M15S", 5_415), ("P2W", 1_209_600), ("p1d", 86_400),
    ] as [(String, Int64)])
    func readsBothForms(text: String, seconds: Int64) {
        #expect(Period.seconds(text) == seconds)
    }

    @Test(arguments: ["", "30", "d", "0d", "-1d", "1.5h", "30 d", "1y", "P1Y", "P1M", "P", "PT", "P1H", "PT1D", "P1W2D", "PT1S1H", "P1D1D", "99999999999999999999s", "P1DT", "30days"])
    func refusesTheRest(text: String) {
        #expect(Period.seconds(text) == nil)
    }
}
