import CityModel
import Storage

/// The services' schema, as the list of migrations that builds it.
///
/// Every table keeps times as milliseconds since 1970 and money as integer minor units, both
/// `BIGINT`. Checks in the schema repeat the rules the code enforces (an amount is positive,
/// a wallet never goes below zero), so that a bug in the code is refused by the store
/// rather than written.
public enum ServiceSchema {
    /// Every migration, oldest first.
    public static let migrations: [Migration] = [version1, version2, version3, version4, version5, version6, version7, version8, version9, version10, version11, version12]

    /// The schema version this build writes.
    public static var version: Int { migrations.count }

    /// Accounts, sessions and reset tokens; the ledger, idempotency and payment intents;
    /// the notification outbox.
    static let version1 = Migration(version: 1, name: "accounts-ledger-outbox", statements: [
        """
        CREATE TABLE users (
            id %ID%,
            role TEXT NOT NULL CHECK (role IN ('passenger', 'driver', 'admin')),
            name TEXT NOT NULL,
            mobile TEXT NOT NULL UNIQUE,
            email TEXT NOT NULL UNIQUE,
            password_hash TEXT NOT NULL,
            failed_attempts BIGINT NOT NULL DEFAULT 0,
            suspended_until_ms BIGINT,
            created_ms BIGINT NOT NULL
        )
        """,
        """
        CREATE TABLE sessions (
            token_hash TEXT PRIMARY KEY,
            user_id BIGINT NOT NULL REFERENCES users (id),
            created_ms BIGINT NOT NULL,
            expires_ms BIGINT NOT NULL,
            ended_ms BIGINT
        )
        """,
        "CREATE INDEX sessions_by_user ON sessions (user_id)",
        """
        CREATE TABLE password_resets (
            token_hash TEXT PRIMARY KEY,
            user_id BIGINT NOT NULL REFERENCES users (id),
            created_ms BIGINT NOT NULL,
            expires_ms BIGINT NOT NULL,
            used_ms BIGINT
        )
        """,
        """
        CREATE TABLE ledger_accounts (
            id TEXT PRIMARY KEY,
            normal TEXT NOT NULL CHECK (normal IN ('debit', 'credit')),
            no_overdraft BIGINT NOT NULL CHECK (no_overdraft IN (0, 1)),
            debits_posted BIGINT NOT NULL DEFAULT 0 CHECK (debits_posted >= 0),
            credits_posted BIGINT NOT NULL DEFAULT 0 CHECK (credits_posted >= 0),
            debits_pending BIGINT NOT NULL DEFAULT 0 CHECK (debits_pending >= 0),
            credits_pending BIGINT NOT NULL DEFAULT 0 CHECK (credits_pending >= 0),
            CHECK (no_overdraft = 0
                OR (normal = 'credit' AND debits_posted + debits_pending <= credits_posted)
                OR (normal = 'debit' AND credits_posted + credits_pending <= debits_posted))
        )
        """,
        """
        CREATE TABLE ledger_transfers (
            id %ID%,
            transfer_key TEXT NOT NULL UNIQUE,
            debit_account TEXT NOT NULL REFERENCES ledger_accounts (id),
            credit_account TEXT NOT NULL REFERENCES ledger_accounts (id),
            amount BIGINT NOT NULL CHECK (amount > 0),
            phase TEXT NOT NULL CHECK (phase IN ('single', 'pending', 'post', 'void')),
            pending_id BIGINT REFERENCES ledger_transfers (id),
            resolved BIGINT NOT NULL DEFAULT 0 CHECK (resolved IN (0, 1)),
            reference TEXT NOT NULL,
            created_ms BIGINT NOT NULL,
            CHECK (debit_account <> credit_account),
            CHECK ((phase IN ('post', 'void')) = (pending_id IS NOT NULL))
        )
        """,
        "CREATE INDEX transfers_by_debit ON ledger_transfers (debit_account)",
        "CREATE INDEX transfers_by_credit ON ledger_transfers (credit_account)",
        "CREATE INDEX transfers_by_reference ON ledger_transfers (reference)",
        """
        CREATE TABLE idempotency (
            key TEXT PRIMARY KEY,
            operation TEXT NOT NULL,
            request_hash TEXT NOT NULL,
            response TEXT NOT NULL,
            created_ms BIGINT NOT NULL
        )
        """,
        """
        CREATE TABLE payment_intents (
            id %ID%,
            idempotency_key TEXT NOT NULL UNIQUE,
            request_hash TEXT NOT NULL,
            user_id BIGINT NOT NULL REFERENCES users (id),
            amount BIGINT NOT NULL CHECK (amount > 0),
            status TEXT NOT NULL CHECK (status IN
                ('created', 'requires_action', 'unknown', 'succeeded', 'declined')),
            detail TEXT,
            created_ms BIGINT NOT NULL,
            updated_ms BIGINT NOT NULL
        )
        """,
        """
        CREATE TABLE trip_payments (
            reference TEXT PRIMARY KEY,
            passenger_id BIGINT NOT NULL REFERENCES users (id),
            method TEXT NOT NULL CHECK (method IN ('wallet', 'cash')),
            held BIGINT NOT NULL CHECK (held >= 0),
            pending_id BIGINT REFERENCES ledger_transfers (id),
            status TEXT NOT NULL CHECK (status IN ('held', 'settled', 'released')),
            driver_id BIGINT REFERENCES users (id),
            fare BIGINT,
            wallet_paid BIGINT,
            cash_paid BIGINT,
            commission BIGINT,
            created_ms BIGINT NOT NULL,
            updated_ms BIGINT NOT NULL
        )
        """,
        """
        CREATE TABLE outbox (
            id %ID%,
            user_id BIGINT,
            kind TEXT NOT NULL,
            payload TEXT NOT NULL,
            created_ms BIGINT NOT NULL,
            sent_ms BIGINT,
            attempts BIGINT NOT NULL DEFAULT 0
        )
        """,
        "CREATE INDEX outbox_unsent ON outbox (sent_ms, id)",
    ])

    /// Passengers' favourite places.
    static let version2 = Migration(version: 2, name: "favourites", statements: [
        """
        CREATE TABLE favourites (
            user_id BIGINT NOT NULL REFERENCES users (id),
            position BIGINT NOT NULL,
            name TEXT NOT NULL,
            lat_e7 BIGINT NOT NULL CHECK (lat_e7 BETWEEN -900000000 AND 900000000),
            lon_e7 BIGINT NOT NULL CHECK (lon_e7 BETWEEN -1800000000 AND 1800000000),
            PRIMARY KEY (user_id, position)
        )
        """,
    ])

    /// Cabs on shift, bookings with their state history, and feedback.
    static let version3 = Migration(version: 3, name: "bookings", statements: [
        """
        CREATE TABLE cab_drivers (
            cab_id TEXT PRIMARY KEY,
            driver_id BIGINT NOT NULL UNIQUE REFERENCES users (id),
            cab_type TEXT NOT NULL,
            seats BIGINT NOT NULL CHECK (seats BETWEEN 1 AND 50),
            since_ms BIGINT NOT NULL
        )
        """,
        """
        CREATE TABLE bookings (
            number BIGINT PRIMARY KEY CHECK (number BETWEEN 100000 AND 999999),
            passenger_id BIGINT NOT NULL REFERENCES users (id),
            kind TEXT NOT NULL CHECK (kind IN ('now', 'later')),
            state TEXT NOT NULL CHECK (state IN
                ('requested', 'allocated', 'arrived', 'started', 'completed', 'cancelled', 'not-served')),
            pickup_lat_e7 BIGINT NOT NULL CHECK (pickup_lat_e7 BETWEEN -900000000 AND 900000000),
            pickup_lon_e7 BIGINT NOT NULL CHECK (pickup_lon_e7 BETWEEN -1800000000 AND 1800000000),
            dest_lat_e7 BIGINT NOT NULL CHECK (dest_lat_e7 BETWEEN -900000000 AND 900000000),
            dest_lon_e7 BIGINT NOT NULL CHECK (dest_lon_e7 BETWEEN -1800000000 AND 1800000000),
            pickup_ms BIGINT NOT NULL,
            cab_type TEXT NOT NULL,
            seats BIGINT NOT NULL CHECK (seats BETWEEN 1 AND 50),
            payment TEXT NOT NULL CHECK (payment IN ('wallet', 'cash')),
            estimate BIGINT NOT NULL CHECK (estimate >= 0),
            first_ride BIGINT NOT NULL CHECK (first_ride IN (0, 1)),
            revision BIGINT NOT NULL DEFAULT 1,
            dispatched BIGINT NOT NULL DEFAULT 0 CHECK (dispatched IN (0, 1)),
            cab_id TEXT,
            driver_id BIGINT REFERENCES users (id),
            eta_seconds BIGINT,
            reason TEXT,
            fare BIGINT CHECK (fare >= 0),
            created_ms BIGINT NOT NULL,
            updated_ms BIGINT NOT NULL,
            ended_ms BIGINT
        )
        """,
        "CREATE INDEX bookings_by_passenger ON bookings (passenger_id, pickup_ms)",
        "CREATE INDEX bookings_due ON bookings (state, dispatched, pickup_ms)",
        "CREATE INDEX bookings_ended ON bookings (ended_ms)",
        """
        CREATE TABLE booking_events (
            id %ID%,
            booking_number BIGINT NOT NULL REFERENCES bookings (number),
            state TEXT NOT NULL,
            at_ms BIGINT NOT NULL,
            detail TEXT NOT NULL
        )
        """,
        "CREATE INDEX booking_events_by_booking ON booking_events (booking_number, id)",
        """
        CREATE TABLE feedback (
            booking_number BIGINT PRIMARY KEY REFERENCES bookings (number),
            passenger_id BIGINT NOT NULL REFERENCES users (id),
            driver_rating BIGINT NOT NULL CHECK (driver_rating BETWEEN 1 AND 5),
            cab_rating BIGINT NOT NULL CHECK (cab_rating BETWEEN 1 AND 5),
            experience_rating BIGINT NOT NULL CHECK (experience_rating BETWEEN 1 AND 5),
            comment TEXT NOT NULL,
            created_ms BIGINT NOT NULL
        )
        """,
    ])

    /// Ride requests (002) with their grid-cell index, and drivers' acceptances.
    static let version4 = Migration(version: 4, name: "ride-requests", statements: [
        """
        CREATE TABLE ride_requests (
            id %ID%,
            client_id TEXT NOT NULL,
            fingerprint TEXT NOT NULL,
            rider_id BIGINT NOT NULL REFERENCES users (id),
            status TEXT NOT NULL CHECK (status IN ('open', 'accepted', 'confirmed', 'completed', 'paid', 'cancelled')),
            source_lat_e7 BIGINT NOT NULL CHECK (source_lat_e7 BETWEEN -900000000 AND 900000000),
            source_lon_e7 BIGINT NOT NULL CHECK (source_lon_e7 BETWEEN -1800000000 AND 1800000000),
            dest_lat_e7 BIGINT NOT NULL CHECK (dest_lat_e7 BETWEEN -900000000 AND 900000000),
            dest_lon_e7 BIGINT NOT NULL CHECK (dest_lon_e7 BETWEEN -1800000000 AND 1800000000),
            cell BIGINT NOT NULL,
            source_address TEXT NOT NULL,
            dest_address TEXT NOT NULL,
            description TEXT NOT NULL,
            fare BIGINT NOT NULL CHECK (fare > 0),
            metres BIGINT NOT NULL CHECK (metres >= 0),
            driver_id BIGINT REFERENCES users (id),
            created_ms BIGINT NOT NULL,
            updated_ms BIGINT NOT NULL,
            UNIQUE (rider_id, client_id)
        )
        """,
        "CREATE INDEX ride_requests_by_cell ON ride_requests (status, cell)",
        """
        CREATE TABLE ride_acceptances (
            request_id BIGINT NOT NULL REFERENCES ride_requests (id),
            driver_id BIGINT NOT NULL REFERENCES users (id),
            client_id TEXT NOT NULL,
            created_ms BIGINT NOT NULL,
            PRIMARY KEY (request_id, driver_id),
            UNIQUE (driver_id, client_id)
        )
        """,
    ])

    /// The lease of each city's live fleet and dispatch: one owner at a time among the
    /// replicas, with a fencing token that grows at every change of owner.
    static let version5 = Migration(version: 5, name: "city-leases", statements: [
        """
        CREATE TABLE city_leases (
            city TEXT PRIMARY KEY,
            owner TEXT NOT NULL,
            url TEXT NOT NULL,
            token BIGINT NOT NULL CHECK (token > 0),
            expires_ms BIGINT NOT NULL
        )
        """,
    ])

    /// Each cab's last known position and status, written every few seconds by the city's
    /// owner, so that a replica taking over starts with the fleet where it was.
    static let version6 = Migration(version: 6, name: "cab-positions", statements: [
        """
        CREATE TABLE cab_positions (
            cab_id TEXT PRIMARY KEY,
            lat_e7 BIGINT NOT NULL CHECK (lat_e7 BETWEEN -900000000 AND 900000000),
            lon_e7 BIGINT NOT NULL CHECK (lon_e7 BETWEEN -1800000000 AND 1800000000),
            reported_ms BIGINT NOT NULL,
            status TEXT NOT NULL
        )
        """,
    ])

    /// Each trip's track (the cab's position reports between start and completion, stamped
    /// by the server), what was billed from it beside the driver's meter, and the review flag.
    static let version7 = Migration(version: 7, name: "trip-tracks", statements: [
        """
        CREATE TABLE trip_points (
            booking_number BIGINT NOT NULL,
            at_ms BIGINT NOT NULL,
            lat_e7 BIGINT NOT NULL CHECK (lat_e7 BETWEEN -900000000 AND 900000000),
            lon_e7 BIGINT NOT NULL CHECK (lon_e7 BETWEEN -1800000000 AND 1800000000),
            PRIMARY KEY (booking_number, at_ms)
        )
        """,
        "ALTER TABLE bookings ADD COLUMN billed_metres BIGINT",
        "ALTER TABLE bookings ADD COLUMN meter_metres BIGINT",
        "ALTER TABLE bookings ADD COLUMN review TEXT",
        "ALTER TABLE bookings ADD COLUMN awaiting_confirmation BIGINT NOT NULL DEFAULT 0 CHECK (awaiting_confirmation >= 0)",
    ])

    /// The outbox's retries: when a notification may be tried again, and when one that kept
    /// failing was set aside, so that it blocks nothing behind it; and the refills the
    /// reconciliation looks for every minute, found by an index.
    static let version8 = Migration(version: 8, name: "outbox-retries-reconciliation", statements: [
        "ALTER TABLE outbox ADD COLUMN next_attempt_ms BIGINT NOT NULL DEFAULT 0",
        "ALTER TABLE outbox ADD COLUMN set_aside_ms BIGINT",
        "CREATE INDEX outbox_due ON outbox (sent_ms, set_aside_ms, next_attempt_ms)",
        "CREATE INDEX payment_intents_open ON payment_intents (status, updated_ms)",
    ])

    /// Accounts activated by a one-time code sent to the mobile number, and a record of the
    /// login names tried that match no account (so that such a try costs the same work as
    /// one that does). Accounts made before are taken as verified.
    static let version9 = Migration(version: 9, name: "verified-mobiles", statements: [
        "ALTER TABLE users ADD COLUMN verified_ms BIGINT",
        "UPDATE users SET verified_ms = created_ms",
        """
        CREATE TABLE verification_codes (
            mobile TEXT PRIMARY KEY,
            user_id BIGINT NOT NULL REFERENCES users (id),
            code_hash TEXT NOT NULL,
            expires_ms BIGINT NOT NULL,
            attempts BIGINT NOT NULL DEFAULT 0
        )
        """,
        """
        CREATE TABLE login_probes (
            name_hash TEXT PRIMARY KEY,
            attempts BIGINT NOT NULL,
            last_ms BIGINT NOT NULL
        )
        """,
    ])

    /// Booking numbers that cannot run out: six digits while a six-digit number is free, then
    /// seven, and so on up to twelve (`BookingSettings.numberSpace`). PostgreSQL replaces the
    /// number's check; SQLite, which cannot drop a check, rebuilds the table (foreign keys
    /// deferred: the history rows find their bookings again before the commit).
    static let version10 = Migration(version: 10, name: "booking-numbers", statements: [
        "%POSTGRES%ALTER TABLE bookings DROP CONSTRAINT IF EXISTS bookings_number_check",
        "%POSTGRES%ALTER TABLE bookings ADD CONSTRAINT bookings_number_check CHECK (number BETWEEN 100000 AND 999999999999)",
        "%SQLITE%PRAGMA defer_foreign_keys = ON",
        "%SQLITE%CREATE TABLE bookings_v9 AS SELECT * FROM bookings",
        "%SQLITE%DROP TABLE bookings",
        """
        %SQLITE%CREATE TABLE bookings (
            number BIGINT PRIMARY KEY CHECK (number BETWEEN 100000 AND 999999999999),
            passenger_id BIGINT NOT NULL REFERENCES users (id),
            kind TEXT NOT NULL CHECK (kind IN ('now', 'later')),
            state TEXT NOT NULL CHECK (state IN
                ('requested', 'allocated', 'arrived', 'started', 'completed', 'cancelled', 'not-served')),
            pickup_lat_e7 BIGINT NOT NULL CHECK (pickup_lat_e7 BETWEEN -900000000 AND 900000000),
            pickup_lon_e7 BIGINT NOT NULL CHECK (pickup_lon_e7 BETWEEN -1800000000 AND 1800000000),
            dest_lat_e7 BIGINT NOT NULL CHECK (dest_lat_e7 BETWEEN -900000000 AND 900000000),
            dest_lon_e7 BIGINT NOT NULL CHECK (dest_lon_e7 BETWEEN -1800000000 AND 1800000000),
            pickup_ms BIGINT NOT NULL,
            cab_type TEXT NOT NULL,
            seats BIGINT NOT NULL CHECK (seats BETWEEN 1 AND 50),
            payment TEXT NOT NULL CHECK (payment IN ('wallet', 'cash')),
            estimate BIGINT NOT NULL CHECK (estimate >= 0),
            first_ride BIGINT NOT NULL CHECK (first_ride IN (0, 1)),
            revision BIGINT NOT NULL DEFAULT 1,
            dispatched BIGINT NOT NULL DEFAULT 0 CHECK (dispatched IN (0, 1)),
            cab_id TEXT,
            driver_id BIGINT REFERENCES users (id),
            eta_seconds BIGINT,
            reason TEXT,
            fare BIGINT CHECK (fare >= 0),
            created_ms BIGINT NOT NULL,
            updated_ms BIGINT NOT NULL,
            ended_ms BIGINT,
            billed_metres BIGINT,
            meter_metres BIGINT,
            review TEXT,
            awaiting_confirmation BIGINT NOT NULL DEFAULT 0 CHECK (awaiting_confirmation >= 0)
        )
        """,
        "%SQLITE%INSERT INTO bookings (number, passenger_id, kind, state, pickup_lat_e7, pickup_lon_e7, dest_lat_e7, dest_lon_e7, pickup_ms, cab_type, seats, payment, estimate, first_ride, revision, dispatched, cab_id, driver_id, eta_seconds, reason, fare, created_ms, updated_ms, ended_ms, billed_metres, meter_metres, review, awaiting_confirmation) SELECT number, passenger_id, kind, state, pickup_lat_e7, pickup_lon_e7, dest_lat_e7, dest_lon_e7, pickup_ms, cab_type, seats, payment, estimate, first_ride, revision, dispatched, cab_id, driver_id, eta_seconds, reason, fare, created_ms, updated_ms, ended_ms, billed_metres, meter_metres, review, awaiting_confirmation FROM bookings_v9",
        "%SQLITE%DROP TABLE bookings_v9",
        "%SQLITE%CREATE INDEX bookings_by_passenger ON bookings (passenger_id, pickup_ms)",
        "%SQLITE%CREATE INDEX bookings_due ON bookings (state, dispatched, pickup_ms)",
        "%SQLITE%CREATE INDEX bookings_ended ON bookings (ended_ms)",
    ])

    /// Which of the routes offered the passenger chose (0: the fastest), and the track the
    /// cab drove, matched to the roads, kept with the completed trip (encoded polylines at
    /// 10⁻⁶ degrees, one per piece, separated by spaces).
    static let version11 = Migration(version: 11, name: "route-choice-driven-track", statements: [
        "ALTER TABLE bookings ADD COLUMN route_choice BIGINT NOT NULL DEFAULT 0 CHECK (route_choice BETWEEN 0 AND 2)",
        "ALTER TABLE bookings ADD COLUMN driven_track TEXT",
    ])

    /// The company's accounts in shards (`escrow:0` … `escrow:15`, the same for `revenue`
    /// and `gateway`), made once here rather than opened by every payment: a trip's money
    /// moves through its booking's shard, so trips of different shards touch no common row.
    static let version12 = Migration(version: 12, name: "ledger-shards", statements: [
        """
        INSERT INTO ledger_accounts (id, normal, no_overdraft)
        SELECT kind || ':' || CAST(shard AS TEXT), normal, no_overdraft
        FROM (SELECT 'escrow' AS kind, 'credit' AS normal, 1 AS no_overdraft
              UNION ALL SELECT 'revenue', 'credit', 0
              UNION ALL SELECT 'gateway', 'debit', 0) AS kinds
        CROSS JOIN (\(shardNumbers)) AS shards
        WHERE 1 = 1
        ON CONFLICT (id) DO NOTHING
        """,
    ])

    /// `SELECT 0 AS shard UNION ALL SELECT 1 …` up to the ledger's shard count, spelt out:
    /// both engines read it (no `generate_series` in SQLite). The `WHERE` above is SQLite's
    /// rule for an upsert after `INSERT … SELECT`, which would otherwise read `ON` as a join's.
    private static let shardNumbers = (0..<Ledger.shards).map { "SELECT \($0) AS shard" }.joined(separator: " UNION ALL ")
}
