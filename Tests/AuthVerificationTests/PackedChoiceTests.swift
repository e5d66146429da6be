import Testing

@testable import AuthVerification

/// The explorer keeps the move that reached each state packed (``PackedChoice``), and rebuilds
/// every reported trace from those moves. A move it cannot pack back as it was would replay as
/// another move: its trace would be reported as the model's broken contract, or be wrong.
@Suite("Packed moves")
struct PackedChoiceTests {
    /// Every kind of move, at small indices and at indices far past any shipped model: 16,384
    /// requests in flight and 65,536 replies to one were past the 32-bit packing's reach.
    @Test(
        "a move packs and unpacks as itself, however large its indices",
        arguments: [
            Choice.intent(0), .intent(7), .intent(1 << 31), .intent(1 << 40),
            .reply(exchange: 0, reply: 0), .reply(exchange: 3, reply: 12),
            .reply(exchange: 16_384, reply: 1), .reply(exchange: 1, reply: 65_536),
            .reply(exchange: (1 << 29) - 1, reply: (1 << 32) - 1),
            .timer(0), .timer(2), .timer(1 << 35),
            .relaunch(0), .relaunch(1), .withdraw(0), .withdraw(3), .withdraw(1 << 40),
        ])
    func roundTrip(_ choice: Choice) {
        #expect(PackedChoice(choice).choice == choice)
    }

    /// Distinct moves stay distinct once packed: none is folded onto another of another kind or
    /// another exchange.
    @Test("distinct moves pack to distinct bits")
    func distinct() {
        let moves: [Choice] = [
            .intent(1), .timer(1), .relaunch(1), .reply(exchange: 0, reply: 1), .reply(exchange: 1, reply: 0),
            .reply(exchange: 16_384, reply: 0), .reply(exchange: 0, reply: 65_536), .intent(1 << 30), .intent(1 << 32),
            .withdraw(1), .withdraw(1 << 30),
        ]
        #expect(Set(moves.map { PackedChoice($0).bits }).count == moves.count)
    }
}
