// The README's services example, run for real: accounts and a wallet on an SQLite file.
//
//   wayfare-services-example [DATABASE]     (default: a new file in the temporary folder)
//
// It registers a passenger, logs in, refills the wallet through the test-mode gateway, holds
// a fare, settles it; then books a cab in Monaco (Data/monaco, read from the current folder),
// lets the driver accept, drive and end the trip, and prints the invoice, the balances and
// the ledger audit.
import CityModel
import Fares
import Fleet
import Foundation
import Geodesy
import RoadGraph
import SQLiteStorage
import Services
import Storage
import TaxiDispatch
import ZoneImport

let path = CommandLine.arguments.dropFirst().first
    ?? FileManager.default.temporaryDirectory.appendingPathComponent("wayfare-services-\(UUID().uuidString).sqlite").path
let myNotifier = RecordingNotifier()
let myGateway = TestModeGateway()
let cardToken = "tok_visa"
let casino = Coordinate(unchecked: 43.7393, 7.4277), palace = Coordinate(unchecked: 43.7314, 7.4197)
let portHercule = Coordinate(unchecked: 43.7347, 7.4226)

do {
    let store = try SQLiteStore(path: path)               // nothing to install
    // let store = try PostgresStore(url: "postgres://wayfare:…@127.0.0.1:5432/wayfare")  // many nodes
    try store.migrate(ServiceSchema.migrations)

    let accounts = Accounts(store: store, notifier: myNotifier)
    _ = try await accounts.register(Registration(
        name: "Asha Rao", mobile: "9876543210", email: "asha@example.com",
        password: "monsoon ride 42", confirmation: "monsoon ride 42"))
    let code = myNotifier.verificationCode(for: "9876543210") ?? ""   // what Asha's phone received
    let asha = try await accounts.verify(mobile: "9876543210", code: code)
    let session = try await accounts.logIn(mobile: "9876543210", password: "monsoon ride 42")

    // The company creates its first admin, and the admin a driver.
    let adminPassword = "Adm1n!example"
    _ = try await accounts.createAdmin(Registration(
        name: "Admin", mobile: "9000000001", email: "admin@example.com",
        password: adminPassword, confirmation: adminPassword), adminSession: nil)
    let adminSession = try await accounts.logIn(mobile: "9000000001", password: adminPassword).token
    let driverID = try await accounts.createDriver(Registration(
        name: "Ravi Kumar", mobile: "9000000002", email: "ravi@example.com",
        password: "steady wheels 7", confirmation: "steady wheels 7"), adminSession: adminSession).id

    let wallet = Wallet(store: store, gateway: myGateway)
    _ = try await wallet.refill(passenger: asha.id, amount: 50_000,           // INR 500.00
                                paymentToken: cardToken, key: try IdempotencyKey("refill-7f3a"))
    _ = try await wallet.holdFare(reference: "482913", passenger: asha.id, estimate: 27_000,
                                  key: try IdempotencyKey("hold-482913"))
    let paid = try await wallet.settleFare(reference: "482913", fare: 25_350, driver: driverID,
                                           key: try IdempotencyKey("settle-482913"))

    // A city: Monaco's wards as taxi zones, its communes as service areas, its roads, its fares.
    // The driver starts a shift and reports; Asha books now; the offer goes to the driver's app.
    let (zones, _) = try ZoneImporter.load(zonesAt: "Data/monaco/wards.geojson", serviceAreasAt: "Data/monaco/communes.geojson")
    let (roads, _) = try RoadNetwork.importOSM(path: "Data/monaco/monaco.osm.pbf")
    let city = City(zones: zones, network: roads, fares: try FareChart.load(path: "Data/monaco/fares.json"))
    let bookings = try Bookings(store: store, city: city)

    try await bookings.startShift(driver: driverID, cab: CabProfile(id: "MC-42", type: .sedan, seats: 4))
    try bookings.report(driver: driverID, position: portHercule, at: Date())
    try bookings.setAvailable(driver: driverID, true)
    let booking = try await bookings.bookNow(
        BookingRequest(passenger: asha.id, pickup: casino, destination: palace, cabType: .sedan),
        key: try IdempotencyKey("book-1c9e"))
    let offer = bookings.offers(for: driverID)[0]
    try await bookings.answer(offer: offer.id, driver: driverID, accept: true)
    try await bookings.arrived(booking.number, driver: driverID)
    try await bookings.started(booking.number, driver: driverID)
    let invoice = try await bookings.complete(booking.number, driver: driverID,
                                              trip: TripReport(metres: 2_900), key: try IdempotencyKey("trip-1c9e"))

    print("session: \(session.user.name), expires \(session.expires)")
    print("paid: fare \(paid.fare), wallet \(paid.walletPaid), cash \(paid.cashPaid), commission \(paid.commission)")
    print("trip: fare \(invoice.total) (base \(invoice.base), distance \(invoice.distance), first ride -\(invoice.discount)), paid by \(invoice.method)")
    print("balance: \(try await wallet.balance(of: asha.id).available)")
    let audit = try LedgerAudit.run(on: store)
    print("ledger: \(audit.transfers) transfers, sound: \(audit.isSound)")
    store.close()
} catch {
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    exit(1)
}
