#!/usr/bin/env bash
# Checkpoints and resume on files: a run killed with SIGKILL at several points and resumed each
# time ends with outputs byte-identical to an uninterrupted run (gzip included) and the same
# counts; SIGINT stops cleanly with exit 130; --resume refuses a different run; progress is a
# redrawn line on a terminal and plain lines elsewhere.
. "$(dirname "$0")/lib.bash"
gen="$tools/ddbpipe-gen"
total() { sed -n 's/.*"total":{[^}]*"'"$2"'":\([0-9]*\).*/\1/p' "$1"; }
M="$root/formats/favorites.json"
cd "$tmp" || exit 1

"$gen" bench --mapping "$M" --items 400000 --out dump.json.gz >/dev/null || fail generator

# a few bad lines and unmatched items in the middle, so rejects and _unmatched are resumed too
{ gzip -dc dump.json.gz | head -170000; printf 'not json\n{"Item":{"pk":{"S":"Other#1"},"sk":{"S":"x"}}}\n'
  gzip -dc dump.json.gz | tail -n +170001; } | gzip -1 >input.json.gz

"$bin" export input.json.gz --mapping "$M" --format csv --gzip --out full --max-rejects 5 \
    --summary full.json --quiet 2>/dev/null || fail "uninterrupted export"

# kill -9 at three points (each after the run checkpointed new progress), resume each time
killed=0
last=none
for round in 1 2 3; do
    resume=""
    [ -f run.state ] && resume=--resume
    "$bin" export input.json.gz --mapping "$M" --format csv --gzip --out part --max-rejects 5 \
        --state run.state --checkpoint-interval 0 $resume --summary part.json --quiet 2>>kill.err &
    pid=$!
    if p=$(kill_after_progress "$pid" run.state "$last"); then
        killed=$((killed + 1))
        last=$p
    fi
    wait "$pid" 2>/dev/null
done
[ "$killed" -ge 3 ] || fail "the runs ended before they could be killed ($killed kills)"
[ -f run.state ] || fail "no state file after the killed runs"
# unless a run already got to the end, one more resume finishes the job
if ! grep -q '"complete":true' run.state; then
    "$bin" export input.json.gz --mapping "$M" --format csv --gzip --out part --max-rejects 5 \
        --state run.state --resume --summary part.json --quiet 2>resume.err || {
        fail "the final resume failed"
        cat resume.err >&2
    }
fi
# every file, ddbpipe's own under _ddbpipe/ too (but the summary, which holds times)
for n in $(cd full && find . -type f ! -name summary.json | sed 's#^\./##'); do
    f=full/$n
    case "$n" in
    *.gz) cmp -s <(gzip -dc "$f") <(gzip -dc "part/$n") || fail "$n differs after kill -9 and resume" ;;
    *) cmp -s "$f" "part/$n" || fail "$n differs after kill -9 and resume" ;;
    esac
    [ "${n%.gz}" = "$n" ] || gzip -t "part/$n" || fail "part/$n is not valid gzip"
done
[ -z "$(find part -name '*partial*')" ] || fail "partial files left after completion"
for k in read written rejected unmatched; do
    [ "$(total full.json $k)" = "$(total part.json $k)" ] ||
        fail "summary $k: $(total part.json $k) after resumes, $(total full.json $k) uninterrupted"
done
grep -q '"complete":true' run.state || fail "the state does not say complete"
"$bin" export input.json.gz --mapping "$M" --format csv --gzip --out part --state run.state \
    --resume --quiet 2>done.err
grep -q "is complete; nothing to resume" done.err || fail "resuming a complete run"
# a complete state under another command is not "done": another input, output and format
"$bin" export dump.json.gz --format ndjson --out other --state run.state --resume --quiet \
    2>other.err
code=$?
[ "$code" = 2 ] || fail "a complete state resumed with another input: exit $code, not 2"
grep -q "cannot resume: inputs differ" other.err || fail "another input: $(cat other.err)"
[ ! -e other ] || fail "another input: its output was made"

# SIGINT: clean stop, exit 130, checkpoint; then resume completes. The input twice over (about
# 2.6 s here), so the stop, sent after the first log line (1 s in), always lands while it runs.
rm -rf sig sig.state sigfull
"$bin" export input.json.gz input.json.gz --mapping "$M" --format ndjson --out sig \
    --state sig.state --max-rejects 10 --checkpoint-interval 0 --progress log \
    --progress-interval 1 2>sig.err &
pid=$!
# the first log line comes after one interval: wait for it, so the stop lands after it
for i in $(seq 1 1500); do
    grep -q "ddbpipe: progress:" sig.err 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.02
done
kill_after_progress "$pid" sig.state none INT >/dev/null
wait "$pid"
code=$?
[ "$code" = 130 ] || fail "SIGINT: exit $code, not 130 (did the run end before the signal?)"
grep -q "interrupted: checkpoint saved in sig.state" sig.err || fail "SIGINT: summary says so"
# progress: plain log lines when not on a terminal (the stop came after the first one)
grep -q "ddbpipe: progress:" sig.err || fail "no progress log lines when not on a terminal"
"$bin" export input.json.gz input.json.gz --mapping "$M" --format ndjson --out sig \
    --state sig.state --max-rejects 10 --resume --summary sig.json --quiet 2>/dev/null ||
    fail "resume after SIGINT"
"$bin" export input.json.gz input.json.gz --mapping "$M" --format ndjson --out sigfull \
    --max-rejects 10 --summary sigfull.json --quiet 2>/dev/null
for k in read written rejected unmatched; do
    [ "$(total sig.json $k)" = "$(total sigfull.json $k)" ] || fail "SIGINT: $k after resume"
done
[ "$(total sigfull.json read)" = $((2 * $(total full.json read))) ] ||
    fail "SIGINT: the uninterrupted run did not read the input twice"
for n in $(cd sigfull && find . -type f ! -name summary.json | sed 's#^\./##'); do
    cmp -s "sigfull/$n" "sig/$n" || fail "SIGINT: $n differs after resume"
done

# a deletes file the killed run began goes on after --resume, though the rest of the input brings no
# delete (it was never opened again, and its deletes were lost): without a mapping and with one
for i in $(seq 1 3000); do
    printf '{"Metadata":{"WriteTimestampMicros":{"N":"1716791487000000"}},"Keys":{"pk":{"S":"Tag#d%d"},"sk":{"S":"x"}},"OldImage":{"pk":{"S":"Tag#d%d"},"sk":{"S":"x"}}}\n' "$i" "$i"
done >dels.json
for opts in "--format ndjson" "--format csv --mapping $M"; do
    rm -rf dfull dpart d.state
    # shellcheck disable=SC2086
    "$bin" export dels.json dump.json.gz $opts --out dfull --quiet 2>/dev/null || fail "deletes: $opts"
    # shellcheck disable=SC2086
    "$bin" export dels.json dump.json.gz $opts --out dpart --state d.state --checkpoint-interval 0 \
        --quiet 2>/dev/null &
    pid=$!
    for _ in $(seq 1 1500); do
        grep -q '"input":1,"pos":[1-9]' d.state 2>/dev/null && grep -q 'deletes\.' d.state && break
        sleep 0.01
    done
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    if grep -q '"complete":true' d.state; then
        echo "note: the deletes run ended before it could be killed; not counted" >&2
        continue
    fi
    # shellcheck disable=SC2086
    "$bin" export dels.json dump.json.gz $opts --out dpart --state d.state --resume --quiet \
        2>/dev/null || fail "deletes: the resume failed ($opts)"
    for n in $(cd dfull && find . -type f ! -name summary.json | sed 's#^\./##'); do
        cmp -s "dfull/$n" "dpart/$n" || fail "deletes: $n differs after kill -9 and resume ($opts)"
    done
done

# interrupt_within SECONDS PID WHAT: SIGINT to PID after half a second; its exit code in $code,
# once it ended within SECONDS (else it is killed and the test fails)
interrupt_within() {
    sleep 0.5
    kill -INT "$2"
    for _ in $(seq 1 $(($1 * 10))); do
        kill -0 "$2" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$2" 2>/dev/null; then
        fail "$3: the run did not stop"
        kill -KILL "$2"
    fi
    wait "$2"
    code=$?
}

# SIGINT while the input (a FIFO) waits for its writer stops the run at once with exit 130 (before,
# the read was restarted and the run went on waiting for the writer)
mkfifo pause.fifo
"$bin" export pause.fifo --format ndjson --out pause --quiet 2>pause.err &
pid=$!
exec {feed}>pause.fifo
gzip -dc dump.json.gz | head -1000 >&"$feed"
interrupt_within 10 "$pid" "SIGINT while the input waits"
exec {feed}>&-
[ "$code" = 130 ] || fail "SIGINT while the input waits: exit $code: $(tail -3 pause.err)"
grep -q "input error" pause.err && fail "SIGINT while the input waits: counted as an input error"

# --max-rejects stops a run under --state: the summary counts the reject that stopped it and the
# records written before it, and the state stands there (before: the checkpoint saved at the start
# stood, "0 rejected, more than --max-rejects 0"); resumed with a higher limit, the files are those
# of an uninterrupted run and the reject is counted once
"$bin" export input.json.gz --mapping "$M" --format csv --gzip --out lim --state lim.state \
    --max-rejects 0 --summary lim.json --quiet 2>lim.err
code=$?
[ "$code" = 1 ] || fail "max-rejects under --state: exit $code: $(tail -2 lim.err)"
[ "$(total lim.json rejected)" = 1 ] && [ "$(total lim.json written)" = 170000 ] &&
    [ "$(total lim.json not_done)" = 0 ] ||
    fail "max-rejects under --state: rejected $(total lim.json rejected), written $(total lim.json written), not done $(total lim.json not_done)"
"$bin" export input.json.gz --mapping "$M" --format csv --gzip --out lim --state lim.state \
    --max-rejects 5 --resume --summary lim2.json --quiet 2>lim2.err ||
    fail "max-rejects under --state, resumed: $(tail -2 lim2.err)"
for f in full/*.csv.gz; do
    cmp -s <(gzip -dc "$f") <(gzip -dc "lim/${f#full/}") || fail "max-rejects, resumed: ${f#full/} differs"
done
[ "$(total lim2.json rejected)" = 1 ] || fail "max-rejects, resumed: rejected $(total lim2.json rejected)"

# --resume from a FIFO: its type, not its times (which change with every write), is what the
# state checks; the producer writes the input again from the start and the resumed run skips what
# the interrupted one committed (before: refused, "inputs differ")
mkfifo again.fifo
n_dump=$(gzip -dc dump.json.gz | wc -l)
"$bin" export again.fifo --format ndjson --out again --state again.state --quiet 2>again.err &
pid=$!
exec {feed}>again.fifo
gzip -dc dump.json.gz | head -1000 >&"$feed"
sleep 0.5
kill -INT "$pid"
wait "$pid"
code=$?
exec {feed}>&-
[ "$code" = 130 ] || fail "FIFO interrupted: exit $code: $(tail -3 again.err)"
grep -q '"complete":false' again.state || fail "FIFO interrupted: the state is not an unfinished run"
gzip -dc dump.json.gz >again.fifo &
feeder=$!
if ! "$bin" export again.fifo --format ndjson --out again --state again.state --resume --quiet \
    2>again2.err; then
    fail "--resume from a FIFO: $(tail -3 again2.err)"
    kill "$feeder" 2>/dev/null # blocked opening the FIFO nobody reads
fi
wait "$feeder" 2>/dev/null
[ "$(wc -l <again/items.ndjson)" = "$n_dump" ] ||
    fail "--resume from a FIFO: $(wc -l <again/items.ndjson) records written, the input has $n_dump"
[ "$(sort again/items.ndjson | uniq -d | wc -l)" = 0 ] || fail "--resume from a FIFO: records twice"

# SIGINT while the input is a FIFO no writer has opened yet stops the run with exit 130 (before:
# open() waited for a writer, deaf to the signal)
mkfifo nowriter.fifo
"$bin" export nowriter.fifo --format ndjson --out nowriter --quiet 2>nowriter.err &
pid=$!
interrupt_within 10 "$pid" "SIGINT before the FIFO has a writer"
[ "$code" = 130 ] || fail "SIGINT before the FIFO has a writer: exit $code: $(tail -3 nowriter.err)"

# outputs committed, then the final checkpoint cannot be saved (a folder is in the state file's
# place): the files hold every record, and the summary says so (it counted from the first saved
# checkpoint, 0 written and all "not done")
mkfifo commit.fifo
"$bin" export commit.fifo --format ndjson --out commit --state commit.state --summary commit.json \
    --quiet 2>commit.err &
pid=$!
for _ in $(seq 1 100); do [ -f commit.state ] && break; sleep 0.05; done
rm commit.state && mkdir -p commit.state/in-the-way
gzip -dc dump.json.gz | head -500 >commit.fifo
wait "$pid"
grep -q "cannot save the checkpoint" commit.err || fail "final save after the commit: not said"
[ "$(wc -l <commit/items.ndjson)" = 500 ] || fail "final save after the commit: the file is not whole"
[ "$(total commit.json written)" = 500 ] ||
    fail "final save after the commit: written $(total commit.json written), the file holds 500"

# --resume with different options or inputs is refused, saying what differs
"$bin" export input.json.gz --mapping "$M" --format csv --gzip --out x --state x.state --quiet \
    --max-rejects 5 --checkpoint-interval 0 2>/dev/null &
pid=$!
kill_after_progress "$pid" x.state none >/dev/null
wait "$pid" 2>/dev/null
if [ -f x.state ] && ! grep -q '"complete":true' x.state; then
    "$bin" export input.json.gz --mapping "$M" --format ndjson --out x --state x.state --resume 2>r1.err
    [ $? = 2 ] && grep -q "options differ from the checkpointed run" r1.err || fail "changed option accepted"
    "$bin" export dump.json.gz --mapping "$M" --format csv --gzip --out x --state x.state --resume 2>r2.err
    [ $? = 2 ] && grep -q "inputs differ" r2.err || fail "changed input accepted"
    "$bin" export input.json.gz --mapping "$M" --format csv --gzip --out x --state x.state 2>r3.err
    [ $? = 2 ] && grep -q "records an unfinished run" r3.err || fail "fresh run over an unfinished state"
fi

# progress: a redrawn line on a terminal, plain lines otherwise
script -qfec "'$bin' export input.json.gz --mapping '$M' --format csv --out tty --max-rejects 5" \
    /dev/null >tty.out 2>&1
grep -q $'\r\033\[K' tty.out || fail "no redrawn status line on a terminal"
grep -q "read [0-9]* (" tty.out || fail "status line content"
grep -q $'\r' sig.err && fail "carriage returns in non-terminal output"
"$bin" export input.json.gz --mapping "$M" --format csv --out js --max-rejects 5 \
    --progress json --progress-interval 1 2>js.err >/dev/null
grep -q '^{"progress":{"elapsed_s":' js.err || fail "no JSON progress"

finish
