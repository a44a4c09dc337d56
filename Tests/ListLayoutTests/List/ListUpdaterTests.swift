import TestSupport
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TextMeasureSupport
@testable import ListLayout

/// What a view would see: each batch, with the snapshots before and after it.
final class DeliveryLog: Sendable {
    struct Delivery: Sendable {
        var changes: ListChanges
        var before: PostSnapshot
        var after: PostSnapshot
    }

    private struct State {
        var deliveries: [Delivery] = []
        var shown = PostSnapshot()
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Locked(State())

    /// Records a batch; the list already holds the snapshot after it.
    func record(_ changes: ListChanges, list: PostList) {
        let after = list.snapshot
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.deliveries.append(Delivery(changes: changes, before: state.shown, after: after))
            state.shown = after
            let count = state.deliveries.count
            let ready = state.waiters.filter { $0.count <= count }.map(\.continuation)
            state.waiters.removeAll { $0.count <= count }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    var deliveries: [Delivery] { state.withLock { $0.deliveries } }
    var count: Int { state.withLock { $0.deliveries.count } }

    /// Returns once `count` batches have been delivered.
    func wait(for count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                if state.deliveries.count >= count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if done { continuation.resume() }
        }
    }
}

@Suite("ListUpdater")
struct ListUpdaterTests {
    /// Given the viewport's offset, each delivery comes with the content offset that keeps the row at
    /// the viewport's top where it was on screen, whatever arrived or left above it since the last
    /// delivery: prepends, deletes, both coalesced, and the reader's own row deleted. The offset is
    /// read on the delivery queue when the delivery is made.
    @Test func anchoredDeliveriesKeepTheReadersRowInPlace() async throws {
        let list = ListFixture.list(MeasureLog())
        let clock = ManualClock()
        let queue = DispatchQueue(label: "view")
        let viewport = Locked(0.0)   // the scroll view's content offset, as the view sets it
        let deliveries = DeliveryLog()
        let updater = ListUpdater(list: list, interval: .milliseconds(300), clock: clock, queue: queue,
                                  viewportOffset: {
                                      dispatchPrecondition(condition: .onQueue(queue))
                                      return viewport.withLock { $0 }
                                  }) { changes, offset in
            viewport.withLock { $0 = offset }
            deliveries.record(changes, list: list)
        }
        /// Where the post with `id` starts now.
        func top(of id: Int) throws -> Double {
            let path = try #require(list.snapshot.indexPath(of: id))
            return try #require(list.offset(of: path))
        }
        updater.submit(try Self.snapshot(100..<200))
        await deliveries.wait(for: 1)
        viewport.withLock { $0 = try! top(of: 120) + 7 }   // the reader scrolls: 7 px into post 120

        // 30 rows prepended, then 5 of the rows above the reader deleted: delivered as one batch.
        updater.submit(try Self.snapshot(70..<200))
        updater.submit(try Self.snapshot(Array(70..<100) + Array(105..<200)))
        await clock.waitForSleeper()
        clock.advance(by: .milliseconds(300))
        await deliveries.wait(for: 2)
        #expect(deliveries.deliveries[1].changes.insertedItems.count == 30)
        #expect(viewport.withLock { $0 } == (try top(of: 120)) + 7)

        // Deletes alone, above the reader.
        updater.submit(try Self.snapshot(Array(90..<100) + Array(115..<200)))
        await clock.waitForSleeper()
        clock.advance(by: .milliseconds(300))
        await deliveries.wait(for: 3)
        #expect(viewport.withLock { $0 } == (try top(of: 120)) + 7)

        // The reader's row deleted: the next row that stays keeps its distance from the viewport's top.
        let distance = (try top(of: 121)) - viewport.withLock { $0 }
        updater.submit(try Self.snapshot(Array(90..<100) + Array(115..<120) + Array(121..<200)))
        await clock.waitForSleeper()
        clock.advance(by: .milliseconds(300))
        await deliveries.wait(for: 4)
        #expect(viewport.withLock { $0 } == (try top(of: 121)) - distance)
        for delivery in deliveries.deliveries {
            #expect(try UIKitBatchSimulator.replay(delivery.changes, on: delivery.before, dataSource: delivery.after)
                    == .init(delivery.after))
        }
        updater.cancel()
    }

    static func snapshot(_ ids: some Sequence<Int>, text: String = "t") throws -> PostSnapshot {
        try PostSnapshot(sections: [ListSection(id: "s", items: ListFixture.posts(ids, text: text))])
    }

    static func make(_ log: MeasureLog = MeasureLog())
        -> (list: PostList, updater: ListUpdater<String, Post, ManualClock>, clock: ManualClock, deliveries: DeliveryLog) {
        let list = ListFixture.list(log)
        let clock = ManualClock()
        let deliveries = DeliveryLog()
        let updater = ListUpdater(list: list, interval: .milliseconds(300), clock: clock) { changes in
            deliveries.record(changes, list: list)
        }
        return (list, updater, clock, deliveries)
    }

    @Test func leadingEdgeThenOneTrailingDeliveryOfTheLatest() async throws {
        let (list, updater, clock, deliveries) = Self.make()
        let first = try Self.snapshot(0..<10)
        updater.submit(first)
        await deliveries.wait(for: 1)   // at once: the clock has not moved
        #expect(deliveries.deliveries[0].changes == ListChanges(insertedSections: [0]))
        #expect(list.snapshot == first)

        // Three submits inside the interval: nothing until it passes, then one batch to the latest.
        updater.submit(try Self.snapshot(0..<11))
        updater.submit(try Self.snapshot(0..<12))
        let latest = try Self.snapshot([42] + Array(1..<12))
        updater.submit(latest)
        await clock.waitForSleeper()
        #expect(deliveries.count == 1)
        clock.advance(by: .milliseconds(299))
        #expect(clock.sleepers == 1 && deliveries.count == 1)
        clock.advance(by: .milliseconds(1))
        await deliveries.wait(for: 2)
        let second = deliveries.deliveries[1]
        #expect(second.before == first && second.after == latest)
        #expect(second.changes == latest.changes(from: first))
        #expect(list.entries == ListFixture.entries(latest))

        // After a quiet interval, a submit is delivered at once again.
        clock.advance(by: .seconds(1))
        let third = try Self.snapshot(5..<20)
        updater.submit(third)
        await deliveries.wait(for: 3)
        #expect(deliveries.deliveries[2].changes == third.changes(from: latest))
        updater.cancel()
    }

    @Test func everyBatchReplaysOnWhatTheViewShows() async throws {
        let (_, updater, clock, deliveries) = Self.make()
        var generator = ListPairGenerator(seed: 11)
        var submitted: [PostSnapshot] = []
        for round in 0..<30 {
            // A few submits per interval, sometimes none.
            for _ in 0..<(round % 4) {
                let snapshot = try PostSnapshot(sections: generator.pair().new)
                submitted.append(snapshot)
                updater.submit(snapshot)
            }
            clock.advance(by: .milliseconds(300))
            await Task.yield()
        }
        let delivered = submitted.last!
        // Wait for the last submitted state to come out.
        while deliveries.deliveries.last?.after != delivered {
            if clock.sleepers > 0 { clock.advance(by: .milliseconds(300)) }
            try await Task.sleep(for: .milliseconds(1))   // a poll, not a timing: the clock is manual
        }
        for delivery in deliveries.deliveries {
            #expect(submitted.contains(delivery.after))
            let replayed = try UIKitBatchSimulator.replay(delivery.changes, on: delivery.before, dataSource: delivery.after)
            #expect(replayed == .init(delivery.after))
        }
        updater.cancel()
    }

    @Test func cancelStopsPendingDeliveriesAndLaterSubmits() async throws {
        let (list, updater, clock, deliveries) = Self.make()
        let first = try Self.snapshot(0..<10)
        updater.submit(first)
        await deliveries.wait(for: 1)
        updater.submit(try Self.snapshot(0..<20))
        await clock.waitForSleeper()
        let task = updater.state.withLock { $0.task }
        updater.cancel()
        await task?.value   // the loop ends (its sleep was cancelled)
        clock.advance(by: .seconds(1))
        updater.submit(try Self.snapshot(0..<30))
        #expect(updater.isIdle)
        #expect(deliveries.count == 1)
        #expect(list.snapshot == first)
    }

    @Test func aDeliveryMayCancelItsOwnUpdater() async throws {
        let list = ListFixture.list(MeasureLog())
        let deliveries = DeliveryLog()
        let holder = Locked<ListUpdater<String, Post, ManualClock>?>(nil)
        let updater = ListUpdater(list: list, clock: ManualClock()) { changes in
            holder.withLock { $0 }?.cancel()   // returns: the lock is the delivery's own
            // Recorded after the cancel, so that the test's wait ends only once the cancel returned.
            deliveries.record(changes, list: list)
        }
        holder.withLock { $0 = updater }
        updater.submit(try Self.snapshot(0..<3))
        await deliveries.wait(for: 1)
        updater.submit(try Self.snapshot(0..<4))
        #expect(updater.state.withLock { $0.cancelled })
        holder.withLock { $0 = nil }
    }

    @Test func reconfiguredItemsAreMeasuredAgainAndReportedWithTheNextBatch() async throws {
        let log = MeasureLog()
        let (_, updater, clock, deliveries) = Self.make(log)
        updater.submit(try Self.snapshot(0..<10))
        await deliveries.wait(for: 1)
        log.reset()
        // Alone: a delivery of just the updates.
        updater.reconfigure([3])
        await clock.waitForSleeper()
        clock.advance(by: .milliseconds(300))
        await deliveries.wait(for: 2)
        #expect(deliveries.deliveries[1].changes == ListChanges(updatedItems: [ItemPath(section: 0, item: 3)]))
        #expect(log.measured == [3])
        // Coalesced with a snapshot: item 5 moved to the top, item 7 reconfigured, 99 unknown.
        log.reset()
        let next = try Self.snapshot([5] + Array(0..<5) + Array(6..<10))
        updater.submit(next)
        updater.reconfigure([7, 99])
        await clock.waitForSleeper()
        clock.advance(by: .milliseconds(300))
        await deliveries.wait(for: 3)
        let changes = deliveries.deliveries[2].changes
        #expect(changes.movedItems.count == 1)
        #expect(changes.updatedItems == [ItemPath(section: 0, item: 7)])
        #expect(log.measured == [7])
        updater.cancel()
    }

    /// 8 threads, 100,000 submits, while the manual clock moves one interval each time the updater
    /// waits: a handful of deliveries, each a batch that replays, the last one the final state, never
    /// more than one per interval.
    @Test func eightThreadsSubmittingAHundredThousandSnapshots() async throws {
        let list = ListFixture.list(MeasureLog())
        let deliveries = DeliveryLog()
        let clock = ManualClock()
        let updater = ListUpdater(list: list, interval: .milliseconds(300), clock: clock) { changes in
            deliveries.record(changes, list: list)
        }
        var generator = ListPairGenerator(seed: 8)
        let pool = try (0..<64).map { _ in try PostSnapshot(sections: generator.pair().new) }
        let final = try Self.snapshot(1_000..<1_100)
        let threads = 8, perThread = 12_500
        // Eight threads of their own (serial queues overcommit: one thread each, whatever the cores).
        let group = DispatchGroup()
        for thread in 0..<threads {
            DispatchQueue(label: "submitter \(thread)").async(group: group) {
                var rng = SplitMix64(seed: UInt64(thread))
                for _ in 0..<perThread { updater.submit(pool.randomElement(using: &rng)!) }
            }
        }
        // Time moves an interval whenever the updater waits for it, while the threads submit.
        let intervals = Locked(0)
        let ticking = Task {
            while !Task.isCancelled {
                await clock.waitForSleeper()
                if Task.isCancelled { break }
                intervals.withLock { $0 += 1 }
                clock.advance(by: .milliseconds(300))
            }
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            group.notify(queue: .global()) { continuation.resume() }
        }
        updater.submit(final)
        while deliveries.deliveries.last?.after != final { await deliveries.wait(for: deliveries.count + 1) }
        ticking.cancel()
        clock.advance(by: .milliseconds(300))   // frees the ticking task if it waits for a sleeper
        let all = deliveries.deliveries
        let elapsed = intervals.withLock { $0 }
        #expect(all.count >= 1 && all.count <= elapsed + 1, "\(all.count) deliveries in \(elapsed) intervals")
        for delivery in all {
            #expect(delivery.after == final || pool.contains(delivery.after))
            let replayed = try UIKitBatchSimulator.replay(delivery.changes, on: delivery.before, dataSource: delivery.after)
            #expect(replayed == .init(delivery.after))
            #expect(delivery.changes == delivery.after.changes(from: delivery.before))
        }
        #expect(list.entries == ListFixture.entries(final))
        updater.cancel()
    }
}
