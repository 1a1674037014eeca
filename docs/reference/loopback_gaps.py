#!/usr/bin/env python3
"""Where a latency-bound run's wall time goes beyond the ideal, read off the wire.

Reads a loopback capture of the simulator's port (tcpdump on `lo`, packets that carry data) and the
bench's key=value output, and splits the gap between `wall_seconds` and the ideal
(requests x (L + J/2) / C) into slot-seconds lost, divided by C:

- outside: the run's wall time before its first request and after its last answer;
- ramp: from the first request until C are in flight;
- steady: from then until C - 4 or more were in flight for the last time;
- tail: from then until the last answer (the last users' chained requests, then the finish);
- oversleep: the mean answer time at the wire beyond L + J/2, for every request.

The parts overlap only in that the oversleep is also spent inside the other three. Measuring tool,
not a prerequisite of the build or the tests (docs/benchmarks.md has the commands).

usage: loopback_gaps.py CAPTURE.pcap PORT BENCH_OUTPUT.txt [--concurrency 64 --latency-ms 100 --jitter-ms 20]
"""

import argparse
import re
import statistics
import subprocess

PACKET = re.compile(r"([\d.]+) IP 127\.0\.0\.1\.(\d+) > 127\.0\.0\.1\.(\d+): .*length (\d+)")


def events(capture, port):
    """(time, is_request, client port) of every packet that carries data, in capture order."""
    lines = subprocess.run(
        ["tcpdump", "-r", capture, "-n", "-tt"], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    for line in lines:
        match = PACKET.match(line)
        if not match or int(match[4]) == 0:
            continue
        source, target = match[2], match[3]
        yield float(match[1]), target == port, source if target == port else target


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("capture")
    parser.add_argument("port")
    parser.add_argument("bench_output")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency-ms", type=float, default=100)
    parser.add_argument("--jitter-ms", type=float, default=20)
    args = parser.parse_args()
    slots = args.concurrency
    mean_latency = (args.latency_ms + args.jitter_ms / 2) / 1000
    wall = float(
        dict(line.strip().split("=", 1) for line in open(args.bench_output) if "=" in line)["wall_seconds"]
    )

    asked = {}  # client port -> instant of the request in flight on it
    latencies = []
    in_flight = 0
    series = []  # (seconds since the first request, requests in flight from then on)
    first = None
    for time, is_request, client in events(args.capture, args.port):
        first = time if first is None else first
        if is_request and client not in asked:
            asked[client] = time
            in_flight += 1
        elif not is_request and client in asked:
            latencies.append(time - asked.pop(client))
            in_flight -= 1
        series.append((time - first, in_flight))
    span = series[-1][0]
    full = next(t for t, n in series if n >= slots)
    last_full = max(t for t, n in series if n >= slots - 4)

    def lost(start, end):
        """Slot-seconds idle in [start, end], divided by the slots."""
        area, previous, current = 0.0, start, 0
        for t, n in series:
            if t < start:
                current = n
                continue
            if t > end:
                break
            area += current * (t - previous)
            previous, current = t, n
        area += current * (end - previous)
        return (end - start) - area / slots

    requests = len(latencies)
    ideal = requests * mean_latency / slots
    print(f"requests={requests}")
    print(f"ideal_seconds={ideal:.3f}")
    print(f"wall_seconds={wall:.3f}")
    print(f"ideal_ratio_of_requests={ideal / wall:.4f}")
    print(f"answer_ms_mean={1000 * statistics.mean(latencies):.3f}")
    print(f"full_after_seconds={full:.3f}")
    print(f"lost_outside_seconds={wall - span:.3f}")
    print(f"lost_ramp_seconds={lost(0, full):.3f}")
    print(f"lost_steady_seconds={lost(full, last_full):.3f}")
    print(f"lost_tail_seconds={lost(last_full, span):.3f}")
    print(f"lost_oversleep_seconds={(statistics.mean(latencies) - mean_latency) * requests / slots:.3f}")


if __name__ == "__main__":
    main()
