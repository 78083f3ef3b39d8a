import Testing
@testable import Geocoding

@Suite struct NormalizerTests {
    @Test func foldsCaseDiacriticsAndAbbreviations() {
        #expect(Normalizer.tokens("Boulevard des Moulins") == Normalizer.tokens("bd des moulins"))
        #expect(Normalizer.tokens("Avenue d'Ostende") == ["av", "d", "ostende"])
        #expect(Normalizer.tokens("Ave. d’Ostende") == ["av", "d", "ostende"])
        #expect(Normalizer.tokens("Hauptstraße 5") == ["hauptstrasse", "5"])
        #expect(Normalizer.tokens("Hauptstr. 5") == ["hauptstrasse", "5"])
        #expect(Normalizer.tokens("Aleksanterink. 12") == ["aleksanterinkatu", "12"])
        #expect(Normalizer.tokens("Hämeentie") == ["hameentie"])
        #expect(Normalizer.tokens("Rue Saint-Dévote") == Normalizer.tokens("rue st devote"))
        #expect(Normalizer.tokens("Main St") == Normalizer.tokens("main street"))
        #expect(Normalizer.tokens("Place du Casino") == Normalizer.tokens("Pl. du casino"))
    }

    @Test func houseNumbers() {
        #expect(Normalizer.splitHouseNumber(["12", "bd", "des", "moulins"]).number == "12")
        let bis = Normalizer.splitHouseNumber(["bd", "des", "moulins", "12", "bis"])
        #expect(bis.number == "12bis" && bis.rest == ["bd", "des", "moulins"] && bis.form == "12bis")
        let a = Normalizer.splitHouseNumber(["12", "a", "kaivokatu"])
        #expect(a.number == "12a" && a.rest == ["kaivokatu"])
        #expect(Normalizer.splitHouseNumber(["12a", "kaivokatu"]).number == "12a")
        #expect(Normalizer.splitHouseNumber(["kaivokatu"]).number == nil)
        #expect(Normalizer.numericPart("12bis") == 12)
        // A range keeps its first number as the number and the whole as the form, number
        // first or last; a later number apart from the run is not part of it.
        let range = Normalizer.splitHouseNumber(Normalizer.tokens("14-20 Mannerheimintie"))
        #expect(range.number == "14" && range.form == "14-20" && range.rest == ["mannerheimintie"])
        #expect(Normalizer.splitHouseNumber(Normalizer.tokens("Mannerheimintie 14–20")).form == "14-20")
        #expect(Normalizer.splitHouseNumber(Normalizer.tokens("12a-12c Kaivokatu")).form == "12a-12c")
        #expect(Normalizer.splitHouseNumber(Normalizer.tokens("Kaivokatu 12")).form == "12")
    }

    @Test func oneEdit() {
        func e(_ a: String, _ b: String) -> Bool { Normalizer.withinOneEdit(Array(a.utf8), Array(b.utf8)) }
        #expect(e("moulins", "moulins") && e("moulins", "moulin") && e("moulins", "moulinss") && e("moulins", "moulims"))
        #expect(e("mannerheimintie", "mannerheimintei") && e("abcde", "bacde"))
        #expect(!e("moulins", "moulimz") && !e("moulins", "mou") && !e("abcde", "edcba") && !e("abcde", "badce"))
    }
}
