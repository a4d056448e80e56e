#!/usr/bin/env python3
"""Derives the adversarial NCCL-log cases of issue 20 from generated ones.

Each case is what a collector or a hand does to good logs: concatenates
ranks' logs into one file, sorts a torchrun console by rank, delivers
lines twice, appends a log to itself, keeps a second copy of a log under
a prefix.  The verdict must stay the one of the source case.  Rerunning
leaves `git diff` empty: ./scripts/gen-derived-nccl.py tests/data/nccl
"""
import gzip
import os
import re
import sys


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read().splitlines(keepends=True)


def write(path, lines):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(lines)


def write_gz(path, lines):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(gzip.compress("".join(lines).encode("utf-8"), mtime=0))


def main(root):
    src = os.path.join(root, "missing-rank")
    ranks = [read(os.path.join(src, "rank%d.log" % r)) for r in range(4)]

    # cat rank0.log ... rank3.log > node-a.log
    write(os.path.join(root, "concat-ranks", "node-a.log"),
          [l for lines in ranks for l in lines])

    # a torchrun console sorted by its [defaultN]: label (stable)
    console = read(os.path.join(root, "torchrun-interleaved", "train.log"))

    def label(line):
        if line.startswith("[default"):
            return int(line[8:line.index("]")])
        return -1
    write(os.path.join(root, "sorted-console", "train.log"),
          sorted(console, key=label))

    # an at-least-once shipper: five COLL lines of rank 1 delivered twice,
    # the repeat arriving ten lines later
    r1 = ranks[1]
    colls = [i for i, l in enumerate(r1) if " opCount " in l]
    batch = r1[colls[10]:colls[14] + 1]
    at = colls[24] + 1
    base = os.path.join(root, "shipper-repeat")
    for r in range(4):
        lines = ranks[r] if r != 1 else r1[:at] + batch + r1[at:]
        write(os.path.join(base, "rank%d.log" % r), lines)

    # rank 0's log appended to itself
    base = os.path.join(root, "appended-self")
    for r in range(4):
        lines = ranks[r] * 2 if r == 0 else ranks[r]
        write(os.path.join(base, "rank%d.log" % r), lines)

    # rank 3's log kept twice: as is, and as a torchrun console copy
    # ("[default3]:") or a collector's copy with a date before each line
    for case, pfx in (("prefix-copy", "[default3]:"),
                      ("date-prefix-copy", "2024-03-05T14:02:11Z: ")):
        base = os.path.join(root, case)
        for r in range(4):
            write(os.path.join(base, "rank%d.log" % r), ranks[r])
        write(os.path.join(base, "console-3.txt"),
              [pfx + l for l in ranks[3]])

    # trust-logs: what a cut, a rotation or a container restart does
    healthy = [read(os.path.join(root, "healthy", "rank%d.log" % r))
               for r in range(4)]
    restart = [read(os.path.join(root, "restart", "rank%d.log" % r))
               for r in range(4)]

    # head -n -12 rank3.log: a healthy run whose rank 3 log was cut
    base = os.path.join(root, "healthy-cut")
    for r in range(4):
        lines = healthy[r][:-12] if r == 3 else healthy[r]
        write(os.path.join(base, "rank%d.log" % r), lines)

    # missing-rank with rank 0's log cut in the middle of the hang
    base = os.path.join(root, "missing-rank-cut")
    for r in range(4):
        lines = ranks[r][:-12] if r == 0 else ranks[r]
        write(os.path.join(base, "rank%d.log" % r), lines)

    # rank 0's log rotated at half: rank0.log.1 (older), rank0.log; in a
    # healthy run, and the same in the hang of missing-rank
    for case, logs in (("healthy-rotated", healthy),
                       ("missing-rank-rotated", ranks)):
        base = os.path.join(root, case)
        half = len(logs[0]) // 2
        write(os.path.join(base, "rank0.log.1"), logs[0][:half])
        write(os.path.join(base, "rank0.log"), logs[0][half:])
        for r in range(1, 4):
            write(os.path.join(base, "rank%d.log" % r), logs[r])

    # restart in containers: every process is pid 1
    base = os.path.join(root, "restart-pid1")
    for r in range(4):
        write(os.path.join(base, "rank%d.log" % r),
              [re.sub(r"^node-a:[0-9]+:", "node-a:1:", l)
               for l in restart[r]])

    # healthy-rotated in containers: node-a:1 is every rank, so the newer
    # file's process cannot be given a rank from its host:pid
    base = os.path.join(root, "healthy-rotated-pid1")
    half = len(healthy[0]) // 2
    pid1 = [[re.sub(r"^node-a:[0-9]+:", "node-a:1:", l) for l in lines]
            for lines in healthy]
    write(os.path.join(base, "rank0.log.1"), pid1[0][:half])
    write(os.path.join(base, "rank0.log"), pid1[0][half:])
    for r in range(1, 4):
        write(os.path.join(base, "rank%d.log" % r), pid1[r])

    # rank 0's restart log rotated exactly where attempt 2 begins
    base = os.path.join(root, "restart-rotated")
    at = next(i for i, l in enumerate(restart[0])
              if i > 0 and "NCCL version" in l)
    write(os.path.join(base, "rank0.log.1"), restart[0][:at])
    write(os.path.join(base, "rank0.log"), restart[0][at:])
    for r in range(1, 4):
        write(os.path.join(base, "rank%d.log" % r), restart[r])

    # trust (issue 18): more of the same classes
    pid1_restart = [[re.sub(r"^node-a:[0-9]+:", "node-a:1:", l)
                     for l in lines] for lines in restart]

    # restart-rotated in containers: rotated at the restart, every pid 1
    base = os.path.join(root, "restart-rotated-pid1")
    write(os.path.join(base, "rank0.log.1"), pid1_restart[0][:at])
    write(os.path.join(base, "rank0.log"), pid1_restart[0][at:])
    for r in range(1, 4):
        write(os.path.join(base, "rank%d.log" % r), pid1_restart[r])

    # missing-rank with two cuts: the culprit's log at op 20, and a
    # waiting rank's after its COLL line of op 30, before its watchdog
    base = os.path.join(root, "missing-rank-cut-two")
    c2 = [i for i, l in enumerate(ranks[2]) if " opCount 14 " in l][0]
    c1 = [i for i, l in enumerate(ranks[1]) if " opCount 1e " in l][0]
    for r in range(4):
        lines = (ranks[r][:c2 + 1] if r == 2 else
                 ranks[r][:c1 + 1] if r == 1 else ranks[r])
        write(os.path.join(base, "rank%d.log" % r), lines)

    # a healthy run with two logs cut short (ranks 1 and 3)
    base = os.path.join(root, "healthy-cut-two")
    for r in range(4):
        lines = healthy[r][:20] if r == 1 else \
            healthy[r][:30] if r == 3 else healthy[r]
        write(os.path.join(base, "rank%d.log" % r), lines)

    # a log of another run (the healthy one: its own commId) in place of
    # rank 0's, and one beside rank 3's
    base = os.path.join(root, "stale-log-only")
    for r in range(4):
        write(os.path.join(base, "rank%d.log" % r),
              healthy[0] if r == 0 else ranks[r])
    base = os.path.join(root, "stale-log-beside")
    for r in range(4):
        write(os.path.join(base, "rank%d.log" % r), ranks[r])
    write(os.path.join(base, "rank3.log.old"), healthy[3])

    # adv4: restart whose attempt 1 on rank 0 begins its trouble with a
    # short WARN: the note on the dropped attempt quotes it whole (a cut
    # of a line shorter than the cut read past its end)
    base = os.path.join(root, "restart-short-warn")
    for r in range(4):
        lines = list(restart[r])
        if r == 0:
            at = next(i for i, l in enumerate(lines) if "[E305" in l)
            lines.insert(at, "node-a:4000:4050 [0] misc/socket.cc:50 "
                         "NCCL WARN x\n")
        write(os.path.join(base, "rank%d.log" % r), lines)

    # adv4: missing-rank's logs in final/, and in snap/ the first two
    # thirds of rank 0's and rank 2's, copied during the hang
    base = os.path.join(root, "earlier-copy")
    for r in range(4):
        write(os.path.join(base, "final", "rank%d.log" % r), ranks[r])
        if r in (0, 2):
            write(os.path.join(base, "snap", "rank%d.log" % r),
                  ranks[r][:len(ranks[r]) * 2 // 3])

    # adv4: tensor parallelism in NCCL logs: a world comm of 4 and two
    # comms of 2 ({0,1}, {2,3}), 10 steps of both; then rank 3 never
    # calls the 11th pair all_reduce, so rank 2 waits there and never
    # reaches world op 10, which ranks 0 and 1 call.  tp-hang-lost-log:
    # the same without rank 3's log (its node died with it).
    def tp_log(r):
        hp = "node-a:%d:%d [%d] NCCL INFO " % (4000 + r, 4000 + r, r)
        cw, cp = 0x5600d0a10000 + r * 0x100, 0x5600d0b10000 + r * 0x100
        pair = "0x3333cccc4444dddd" if r < 2 else "0x5555eeee6666ffff"
        out = [hp + "NCCL version 2.21.5+cuda12.2\n"]
        for comm, rank, n, cid in ((cw, r, 4, "0x1111aaaa2222bbbb"),
                                   (cp, r % 2, 2, pair)):
            out.append(hp + "ncclCommInitRankConfig comm 0x%x rank %d "
                       "nranks %d cudaDev %d nvmlDev %d busId %x000 "
                       "commId %s - Init COMPLETE\n"
                       % (comm, rank, n, r, r, 0x1b + r * 0x20, cid))

        def coll(oc, comm, n, count):
            return (hp + "AllReduce: opCount %x sendbuff 0x7f00aa000000 "
                    "recvbuff 0x7f00aa000000 count %d datatype 7 op 0 root "
                    "0 comm 0x%x [nranks=%d] stream 0x55e0c1c8f7a0\n"
                    % (oc, count, comm, n))
        for step in range(10):
            out.append(coll(step, cw, 4, 1024))
            out.append(coll(step, cp, 2, 512))
        if r != 3:
            out.append(coll(10, cp, 2, 512))
        if r < 2:
            out.append(coll(10, cw, 4, 1024))
        return out
    for r in range(4):
        write(os.path.join(root, "tp-hang", "rank%d.log" % r), tp_log(r))
        if r != 3:
            write(os.path.join(root, "tp-hang-lost-log", "rank%d.log" % r),
                  tp_log(r))

    # adv4: two 4-rank jobs side by side on one 8-GPU node, logging into
    # one directory: missing-rank on GPUs 0-3, lagging-rank on GPUs 4-7
    # (its own pids, commId and bus ids, five minutes later).  Every rank
    # number is in both jobs, through two logs.
    lagging = [read(os.path.join(root, "lagging-rank", "rank%d.log" % r))
               for r in range(4)]

    def other_job(line):
        line = re.sub(r"^node-a:40([0-9][0-9]):40", r"node-a:50\1:50", line)
        line = re.sub(r"cudaDev ([0-3]) nvmlDev ([0-3]) busId [0-9a-f]b000",
                      lambda m: "cudaDev %d nvmlDev %d busId %x000" % (
                          int(m.group(1)) + 4, int(m.group(2)) + 4,
                          0x9b + 0x20 * int(m.group(1))), line)
        return line.replace(" 14:32:1", " 14:37:1")
    base = os.path.join(root, "two-jobs")
    for r in range(4):
        write(os.path.join(base, "job-a", "rank%d.log" % r), ranks[r])
        write(os.path.join(base, "job-b", "rank%d.log" % r),
              [other_job(l) for l in lagging[r]])

    # trust (issue 18, silent ranks): the example incident's logs, node-a's
    # as they are and node-b's cut (`zcat node-b.log.gz | head -K`): with
    # K = 11, ranks 5-7 left only their Init lines, nothing of PG 0; with
    # K = 14, rank 5's dump signal shows its counters at 37 and rank 6
    # times out in seq 38, rank 7 left only its Init lines.
    ex = os.path.join(root, "..", "..", "..", "testdata", "example-incident",
                      "logs")
    node_a = read(os.path.join(ex, "node-a.log"))
    with gzip.open(os.path.join(ex, "node-b.log.gz"), "rt",
                   encoding="utf-8") as f:
        node_b = f.read().splitlines(keepends=True)
    for case, k in (("init-only-silent", 11), ("init-only-one", 14)):
        base = os.path.join(root, case)
        write(os.path.join(base, "node-a.log"), node_a)
        write(os.path.join(base, "node-b.log"), node_b[:k])

    # trust (issue 18, benign WARNs): the healthy run with NCCL WARNs in
    # the prefix of the rank's own lines.  healthy-advice: advice on the
    # environment, each on one rank (after Init, or after the first op
    # for the net plugin): no_fault, each a note.  healthy-warn-outlived:
    # a WARN of no known kind after rank 0's Init, every op completed
    # after it and a clean Destroy: no_fault, a note.  healthy-warn-error:
    # the same place, an error in NCCL's words: never no_fault.
    def warn_after(lines, at, body):
        pfx = [l for l in lines[:at] if " NCCL " in l][-1].split(" NCCL ")[0]
        return lines[:at] + [pfx + " NCCL WARN " + body + "\n"] + lines[at:]
    advice = (
        (3, 'Missing "iommu=pt" from kernel command line which can lead '
            'to system instablity or hang!'),
        (3, 'NUMA auto balancing enabled which can lead to variability '
            'in the RCCL performance! Disable by "sudo sysctl '
            'kernel.numa_balancing=0"'),
        (4, "NET/Plugin : Plugin load (libnccl-net.so) returned 2 : "
            "libnccl-net.so: cannot open shared object file: No such "
            "file or directory"),
        (3, "nvmlwrap.cc:98 NVML_FAILURE Not Supported"),
    )
    for r in range(4):
        at, body = advice[r]
        write(os.path.join(root, "healthy-advice", "rank%d.log" % r),
              warn_after(healthy[r], at, body))
    # issue 20 (MED-3): each advice with an error appended on the same
    # line, at the same place: the error is trouble whatever the advice
    # says, never no_fault
    errors = (
        ("iommu", " ncclCommInitRank failed: unhandled system error"),
        ("numa", " Init failed: internal error - please report this "
                 "issue to the NCCL developers"),
        ("plugin", " : ncclCommInitRank failed: invalid usage"),
        ("nvml", "; bootstrap.cc:77 NCCL timed out"),
    )
    for k, (name, tail) in enumerate(errors):
        at, body = advice[k]
        for r in range(4):
            lines = healthy[r]
            if r == k:
                lines = warn_after(lines, at, body + tail)
            write(os.path.join(root, "healthy-advice-error-" + name,
                               "rank%d.log" % r), lines)
    for case, body in (
            ("healthy-warn-outlived",
             "Widget count 3 is above the 2 recommended"),
            ("healthy-warn-error",
             "Unhandled system error while calling ncclCommInitRank")):
        for r in range(4):
            lines = healthy[r]
            if r == 0:
                lines = warn_after(lines, 3, body)
            write(os.path.join(root, case, "rank%d.log" % r), lines)

    # trust (issue 18, no hang evidence): the healthy run without its
    # Destroy COMPLETE lines (`grep -v 'Destroy COMPLETE'`), rank 3's log
    # then 12 lines shorter (healthy-no-destroy-cut) or 1 line shorter
    # (-one): COLL lines that end at different points, no timeout, no
    # error, no dump: logs that may have been copied mid-run.
    for case, k in (("healthy-no-destroy-cut", 12),
                    ("healthy-no-destroy-cut-one", 1)):
        for r in range(4):
            lines = [l for l in healthy[r] if "Destroy COMPLETE" not in l]
            if r == 3:
                lines = lines[:-k]
            write(os.path.join(root, case, "rank%d.log" % r), lines)

    # issue 20, H5 (NCCL < 2.16 logs have no commId): the healthy run
    # with rank 1's log replaced by missing-rank's rank 1, every commId
    # taken out (`sed -E 's/ commId 0x[0-9a-f]+//'`): a log of another
    # run whose seq 30 the others' completed seq 38 proves rank 1 went
    # past; never a lagging or missing rank 1.
    nocomm = lambda lines: [re.sub(r" commId 0x[0-9a-f]+", "", l)
                            for l in lines]
    for r in range(4):
        lines = ranks[1] if r == 1 else healthy[r]
        write(os.path.join(root, "stale-log-nocommid", "rank%d.log" % r),
              nocomm(lines))

    # issue 20 (H4): rank 0's log rotated into more than two parts, the
    # older parts gzipped in one, with the [rankN]: lines removed so that
    # only the oldest part names the rank (scripts/gen-rotated.py does
    # the same over more fixtures, for tests/cli/rotated.sh)
    for case, logs, n, gz in (("missing-rank-rotated-three", ranks, 3, False),
                              ("healthy-rotated-four-gz", healthy, 4, True)):
        base = os.path.join(root, case)
        logs = [[l for l in lines if not l.startswith("[rank")]
                for lines in logs]
        size = len(logs[0]) // n
        for i in range(n):
            k = n - 1 - i
            part = logs[0][i * size:(i + 1) * size if k else None]
            if not k:
                write(os.path.join(base, "rank0.log"), part)
            elif gz:
                write_gz(os.path.join(base, "rank0.log.%d.gz" % k), part)
            else:
                write(os.path.join(base, "rank0.log.%d" % k), part)
        for r in range(1, 4):
            write(os.path.join(base, "rank%d.log" % r), logs[r])

    # adv-attempts: a restart that hangs again where attempt 1 did.  Each
    # log is the hang twice, torchrun's restart lines between; attempt 2
    # has new pids, a new commId and its timeouts 20 minutes later.  The
    # c10d lines are the same text in both attempts but for their time:
    # they are a new life's, never repeats of attempt 1's.
    agent = [l for l in restart[0] if "elastic.agent" in l]

    def again(lines):
        out = []
        for l in lines:
            l = re.sub(r"^node-a:40([0-9][0-9]):40", r"node-a:50\1:50", l)
            out.append(l.replace("E305 14:32:11", "E305 14:52:11")
                       .replace("6071", "6073"))
        return lines + agent + out

    # missing-rank twice, the culprit's log lost (its node went down):
    # missing_rank rank 2 by elimination, as the single attempt gives
    base = os.path.join(root, "restart-same-hang")
    for r in (0, 1, 3):
        write(os.path.join(base, "rank%d.log" % r), again(ranks[r]))
    # the same restarted by a launcher that logs nothing: the new process
    # on each GPU is what starts the new life
    base = os.path.join(root, "restart-same-hang-no-agent")
    for r in (0, 1, 3):
        write(os.path.join(base, "rank%d.log" % r),
              [l for l in again(ranks[r]) if "elastic.agent" not in l])

    # missing-rank's ranks 0, 1, 3 and rank 1's log as rank 2's: every
    # rank times out at SeqNum 31, twice: insufficient_data, as once
    def as_rank2(line):
        line = line.replace("node-a:4017:4017 [1]", "node-a:4034:4034 [2]")
        line = line.replace("0x5600d0a11830", "0x5600d0a124d0")
        line = line.replace("rank 1 nranks 4 cudaDev 1 nvmlDev 1 busId "
                            "3b000", "rank 2 nranks 4 cudaDev 2 nvmlDev 2 "
                            "busId 5b000")
        return line.replace("[rank1]", "[rank2]", 1).replace(
            "Rank 1]", "Rank 2]", 1)
    base = os.path.join(root, "restart-same-hang-all")
    for r in range(4):
        lines = [as_rank2(l) for l in ranks[1]] if r == 2 else ranks[r]
        write(os.path.join(base, "rank%d.log" % r), again(lines))

    # restart whose attempt 2 hangs too: each log's Destroy replaced by a
    # watchdog timeout at SeqNum 20 (no PG named; attempt 1's lines name
    # PG 0 at SeqNum 31): every rank times out together, insufficient_data
    base = os.path.join(root, "restart-hang-again")
    for r in range(4):
        write(os.path.join(base, "rank%d.log" % r), restart[r][:-1] + [
            "[rank%d]:[E305 14:52:11.123456789 ProcessGroupNCCL.cpp:640] "
            "[Rank %d] Watchdog caught collective operation timeout: "
            "WorkNCCL(SeqNum=20, OpType=BROADCAST, NumelIn=131072, "
            "NumelOut=131072, Timeout(ms)=600000) ran for 600000 "
            "milliseconds before timing out.\n" % (r, r)])
    # the same with that timeout under torchrun's "[defaultN]:" label,
    # which no NCCL line of the log has: a signal of a stream without a
    # process takes the attempt of the latest process begun before it
    base = os.path.join(root, "restart-hang-again-label")
    for r in range(4):
        lines = read(os.path.join(root, "restart-hang-again",
                                  "rank%d.log" % r))
        write(os.path.join(base, "rank%d.log" % r),
              lines[:-1] + ["[default%d]:" % r + lines[-1]])

    # restart-scale-down from NCCL before 2.16: no commId on any Init
    # line, so no comm ties rank 2's and rank 3's logs (attempt 1 only)
    # to attempt 1 of ranks 0 and 1 (known failure, see expect.tsv)
    base = os.path.join(root, "restart-scale-down-no-commid")
    for r in range(4):
        lines = read(os.path.join(root, "restart-scale-down",
                                  "rank%d.log" % r))
        write(os.path.join(base, "rank%d.log" % r),
              [re.sub(r" commId 0x[0-9a-f]+", "", l) for l in lines])

    # the same class by time: restart-cut without commIds.  Every attempt
    # is 4 ranks, so no size tells rank 1's log (attempt 1 only) from
    # attempt 2; its watchdog lines, older than torchrun's restart line in
    # the other logs, place it in attempt 1
    base = os.path.join(root, "restart-cut-no-commid")
    for r in range(4):
        lines = read(os.path.join(root, "restart-cut", "rank%d.log" % r))
        write(os.path.join(base, "rank%d.log" % r),
              [re.sub(r" commId 0x[0-9a-f]+", "", l) for l in lines])

    # restart-scale-down-no-commid whose 2-rank attempt hangs too: ranks 0
    # and 1 time out together at SeqNum 20 instead of tearing down, so the
    # attempt analyzed is a hang, and ranks 2 and 3 (attempt 1 only) are
    # still never in it
    base = os.path.join(root, "restart-scale-down-hang-no-commid")
    for r in range(2):
        lines = read(os.path.join(root, "restart-scale-down-no-commid",
                                  "rank%d.log" % r))
        write(os.path.join(base, "rank%d.log" % r), lines[:-1] + [
            "[rank%d]:[E305 14:52:11.123456789 ProcessGroupNCCL.cpp:640] "
            "[Rank %d] Watchdog caught collective operation timeout: "
            "WorkNCCL(SeqNum=20, OpType=ALLREDUCE, NumelIn=131072, "
            "NumelOut=131072, Timeout(ms)=600000) ran for 600000 "
            "milliseconds before timing out.\n" % (r, r)])
    for r in range(2, 4):
        write(os.path.join(base, "rank%d.log" % r),
              read(os.path.join(root, "restart-scale-down-no-commid",
                                "rank%d.log" % r)))

    # restart-pid1 whose attempt-1 tail (its last three ops, the step line
    # and the watchdog timeout) is printed after attempt 2's banner and
    # Init lines, as a late flush interleaves them; every pid is 1, so
    # the host:pid does not tell the two processes apart (known failure,
    # see expect.tsv)
    base = os.path.join(root, "restart-pid1-interleaved")
    for r in range(4):
        lines = read(os.path.join(root, "restart-pid1", "rank%d.log" % r))
        agent = [i for i, l in enumerate(lines) if "elastic.agent" in l]
        if agent:
            a, b = agent[0], agent[-1] + 1
            lines = (lines[:a - 6] + lines[a:b] + lines[b:b + 3] +
                     lines[a - 6:a] + lines[b + 3:])
        write(os.path.join(base, "rank%d.log" % r), lines)

    # a collector that delivered every line twice in a row: of the hang
    # with a cut log, and of a healthy run whose exit notes a what()
    # line follows (each line is one event, read once)
    for case in ("missing-rank-cut", "healthy-exit-unload"):
        base = os.path.join(root, case + "-twice")
        for r in range(4):
            lines = read(os.path.join(root, case, "rank%d.log" % r))
            write(os.path.join(base, "rank%d.log" % r),
                  [l for l in lines for _ in range(2)])


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/nccl")
