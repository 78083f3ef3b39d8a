import CityModel
import Fares
import Testing
import TestSupport

/// The booking rules each specification asks for, and a city's parts.
@Suite("CityModel: booking rules and a city")
struct CityModelTests {
    @Test("the three sets of booking rules differ where the specifications do, and only there")
    func bookingRules() {
        let standard = BookingSettings.specification000
        #expect(standard == BookingSettings())
        #expect(standard.minimumLead == 30 * 60 && standard.maximumLead == 3 * 86_400 && standard.allocateBefore == 20 * 60)
        var twoHours = standard
        twoHours.minimumLead = 2 * 3600
        twoHours.allocateBefore = 10 * 60
        #expect(BookingSettings.specification001 == twoHours)
        var aWeek = standard
        aWeek.maximumLead = 7 * 86_400
        aWeek.allocateBefore = 10 * 60
        #expect(BookingSettings.specification004 == aWeek)
        #expect(standard.numberSpace == 100_000...999_999 && standard.confirmAbovePercent == 50)
    }

    @Test("a city without a toll list gets an empty one in the fares' currency")
    func noTolls() {
        let city = City(zones: Monaco.zones, network: Monaco.network, fares: Monaco.fares)
        #expect(city.tolls.tolls.isEmpty && city.tolls.currency == "INR")
        #expect(Monaco.city(.specification004).settings == .specification004)
    }
}
