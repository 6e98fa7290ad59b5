/**
 * Every limit of local-pty, named once. Nothing else in the code may hold a bare number that bounds
 * memory, time, concurrency or input size.
 */

// ── Command input (pty_spawn) ────────────────────────────────────────────────────────────────
export const MAX_COMMAND_BYTES = 4_096;
export const MAX_ARGS = 128;
export const MAX_ARG_BYTES = 16_384;
export const MAX_TOTAL_ARG_BYTES = 65_536;
export const MAX_PATH_BYTES = 4_096;
export const MAX_TITLE_CHARS = 500;
export const MAX_DESCRIPTION_CHARS = 2_000;
export const MIN_TIMEOUT_SECONDS = 1;
export const MAX_TIMEOUT_SECONDS = 3_600;

// ── Terminal ─────────────────────────────────────────────────────────────────────────────────
export const DEFAULT_ROWS = 40;
export const DEFAULT_COLS = 120;
export const MIN_TERMINAL_DIMENSION = 1;
export const MAX_TERMINAL_DIMENSION = 1_000;
/** The kernel cuts a canonical-mode input line at 4095 bytes (N_TTY_BUF_SIZE - 1). */
export const CANONICAL_LINE_MAX_BYTES = 4_095;

// ── Registry ─────────────────────────────────────────────────────────────────────────────────
export const MAX_SESSIONS = 16;
export const MAX_SESSIONS_PER_OWNER = 5;
export const PTY_ID_HEX_CHARS = 8;
/**
 * Random bytes drawn at once for PTY ids (16 ids): in Node, the first call into OpenSSL after a fork writes pages the
 * fork made copy-on-write, 0.2 ms at the median against 0.012 otherwise (measured), and every spawn forks.
 */
export const PTY_ID_RANDOM_POOL_BYTES = 64;

// ── Output buffer ────────────────────────────────────────────────────────────────────────────
/**
 * The finished lines a PTY's buffer keeps, each charged its characters, its newline and LINE_OVERHEAD_CHARS. The
 * unfinished (open) line is bounded apart, by this less one line's newline and overhead, and is cut in steps of a
 * quarter of that (CUT_STEPS_PER_BOUND, src/buffer/line-cells.ts): before the next cut it may hold up to 1.25 times
 * its bound, 1,249,978 characters.
 */
export const MAX_BUFFER_CHARS = 1_000_000;
/**
 * What each retained line costs against MAX_BUFFER_CHARS beyond its characters and its newline. It was set when
 * V8 kept every line as its own string in a ring slot (8 bytes of slot, 16 of string header, content rounded up
 * to 8): without it a buffer of 1-3 character lines held 5 MB for a 1 MB bound. The buffer now keeps lines inside
 * a few large strings with an 8-byte index entry each (src/buffer/line-store.ts), so a line's memory is its
 * characters + 8 bytes, and 16 over-counts it (a 1-character line is charged 18, holds about 10). It stays at
 * 16 because it is the bound the model is told about (the tool description, README, the smoke checks): lowering
 * it would change which lines a full buffer shows, and there is no memory problem left for it to fix.
 */
export const LINE_OVERHEAD_CHARS = 16;
/**
 * Rendered lines that arrive one at a time (escape sequences, `\r`) are joined into one string once this many
 * characters have gathered, so a slow trickle of short lines does not keep a string per line.
 */
export const BUFFER_PIECE_CHARS = 8_192;
/**
 * The largest chunk the WebAssembly line scan takes (src/buffer/line-scan.ts); its memory is sized for it. A pipe
 * read in Node is at most 64 KiB; Bun joins reads into larger chunks, which OutputBuffer.append cuts to this size
 * when they are ASCII (anything else is scanned in JS).
 */
export const LINE_SCAN_MAX_CHUNK_BYTES = 128 * 1024;
/**
 * Plain output kept as bytes joins the span before it in the ring while the two stay this long (ByteRing.joined): the
 * line store's pieces and the raw tail's chunks. A span holds its part of the ring until its holder drops it whole,
 * as a chunk of the largest size did.
 */
export const PLAIN_PIECE_MAX_BYTES = LINE_SCAN_MAX_CHUNK_BYTES;
/** Raw bytes kept for `raw: true` reads: the same bound as the text buffer, in characters. */
export const MAX_RAW_CHARS = MAX_BUFFER_CHARS;
/**
 * A buffer's memory for plain output kept as bytes (src/buffer/byte-ring.ts), beyond the larger of the line store's
 * and the raw tail's bounds: room for four of the largest chunks, one that a holder keeps whole past its bound, a gap
 * left at the memory's end, and the newest chunk with a gap of its own. Its pages are taken only as output fills them.
 */
export const PLAIN_RING_SLACK_BYTES = 4 * LINE_SCAN_MAX_CHUNK_BYTES;
/**
 * What a PTY's ring of plain bytes takes at its first write; it doubles as it fills, up to its size. Every byte a
 * runtime hands out for it counts toward its collector's next full collection, whether or not it is ever written.
 */
export const PLAIN_RING_FIRST_BYTES = 65_536;
/**
 * PTY output rendered per turn of the host's event loop, all PTYs together (see src/streams/ingest-gate.ts);
 * at least one chunk (≤ 64 KiB) per turn always gets through.
 */
export const INGEST_BYTES_PER_TURN = 256 * 1_024;
/**
 * Output the ingest gate takes, across turns of the event loop, before it schedules a turn of its own to give its
 * budget back (src/streams/ingest-gate.ts). Below it a read costs the gate a sum, not a `setImmediate`: a REPL's long
 * print comes in hundreds of reads of 100–400 bytes, and their immediates were a fifth of what Node allocated for it.
 * A turn then renders at most this much more than INGEST_BYTES_PER_TURN: a quarter of it (a gate with a budget of its
 * own carries a quarter of that at most).
 */
export const INGEST_CARRY_BYTES = INGEST_BYTES_PER_TURN / 4;
/**
 * The buffer each PTY's output socket is read into in Node, the same one for every read
 * (src/streams/output-channel.ts); a read takes at most this much, as a Node stream's does. Bun reads into buffers of
 * its own, up to 512 KiB.
 */
export const OUTPUT_READ_BYTES = 65_536;
/** How long setting up a PTY's output socket may take before the spawn fails (0.25–0.32 ms at the median). */
export const OUTPUT_CHANNEL_SETUP_MS = 2_000;
/**
 * After a start took the spare output socket, how long until the next spare is paired (spare-output-channel.ts):
 * past the start's own first byte (5–14 ms from the call on this machine), so that the pairing's turns do not fall
 * on its way.
 */
export const OUTPUT_CHANNEL_REFILL_MS = 25;
/**
 * Connections to an output socket's listener that have not yet shown its token, kept while it waits for its own;
 * more are closed at once (anyone on the machine can connect to a socket in the abstract namespace).
 */
export const MAX_OUTPUT_CHANNEL_STRANGERS = 4;
/** Script's own stderr (its diagnostics, never the command's) kept for error messages. */
export const MAX_SCRIPT_STDERR_CHARS = 2_000;
/** Past this many chars a pending escape sequence is abandoned, so an OSC/DCS that never ends can't hide all later output. */
export const MAX_ESCAPE_SEQUENCE_CHARS = 65_536;
/** Parameters kept per CSI sequence (src/buffer/csi-params.ts); later ones are read and dropped (xterm.js keeps 32). */
export const MAX_CSI_PARAMS = 32;
/** A window title a program sets (OSC 0, OSC 2) longer than this is not kept for a screen's restart to give back. */
export const MAX_WINDOW_TITLE_CHARS = 4_096;

// ── pty_write ────────────────────────────────────────────────────────────────────────────────
export const MAX_WRITE_BYTES = 65_536;
/** Bytes queued towards script's stdin that have not drained yet; a write past this waits. */
export const MAX_STDIN_PENDING_BYTES = 1_048_576;
/** How long a write may wait for the pipe to drain before it fails. */
export const STDIN_DRAIN_TIMEOUT_MS = 5_000;

// ── pty_read ─────────────────────────────────────────────────────────────────────────────────
export const MAX_READ_OFFSET = 10_000;
export const DEFAULT_READ_LIMIT = 500;
export const MAX_READ_LIMIT = 2_000;
export const MAX_LINE_CHARS = 2_000;
export const MAX_PATTERN_CHARS = 500;

// ── Search workers (grep) ────────────────────────────────────────────────────────────────────
export const MAX_GREP_WORKERS = 4;
/** Searches waiting for a worker; one more is refused at once. */
export const MAX_GREP_QUEUE = 16;
/** How long a search may wait for a free worker. */
export const GREP_QUEUE_TIMEOUT_MS = 2_000;
/**
 * The CPU time a search's grep may use before it is stopped as too expensive. CPU time, not wall time: on a busy
 * machine a cheap search waits for a core, and it must not be called too expensive for that.
 */
export const GREP_CPU_BUDGET_MS = 250;
/** However little CPU it got, a search's grep is stopped this long after it started: no call waits longer. */
export const GREP_WALL_TIMEOUT_MS = 2_000;
/** The shortest wait between two looks at a running grep's CPU time. */
export const GREP_CPU_CHECK_MIN_MS = 10;
export const MAX_GREP_STDOUT_CHARS = 2 * MAX_BUFFER_CHARS;
export const MAX_GREP_STDERR_CHARS = 2_000;
/**
 * The largest buffer a search keeps for the next one to encode its text into (search-text-encoder.ts): a full
 * buffer of 3-byte characters. A larger text, or a search while the kept buffer is in use, gets a buffer of its own.
 */
export const MAX_KEPT_SEARCH_BYTES = 3 * MAX_BUFFER_CHARS;

// ── Process lifecycle ────────────────────────────────────────────────────────────────────────
/** Between TERM and KILL for the processes of a PTY's session. */
export const TERMINATE_GRACE_MS = 2_000;
/** How often the session is re-scanned while waiting for it to empty. */
export const TERMINATE_POLL_MS = 25;
/** After the session is empty, how long `script` gets to exit by itself before it is killed. */
export const SCRIPT_EXIT_BACKSTOP_MS = 1_000;
/**
 * Checks in a row (one each TERMINATE_POLL_MS) that must find `script` asleep beside its unreaped, dead child before
 * it is killed without waiting for the backstop (it missed the death and would never exit; script-missed-death.ts).
 */
export const SCRIPT_STUCK_CHECKS = 2;
/** After `script` is SIGKILLed, how long to wait for Node to reap it before the termination reports anyway. */
export const SCRIPT_REAP_MS = 1_000;
/** The whole termination, KILL sweeps included, never takes longer than this. */
export const TERMINATE_TIMEOUT_MS = 10_000;
/** After a sweep that emptied the session, script's close (and so the exit) follows within this. */
export const EXIT_AFTER_TERMINATION_MARGIN_MS = 1_000;
/**
 * Scans in one freeze round of a sweep: SIGSTOP every group and member, rescan, until a scan finds no member still
 * running and none new (usually 2-3 scans). Past this many the round KILLs what it has and the next tick goes on.
 */
export const MAX_FREEZE_SCANS = 20;
/**
 * Process groups a sweep or a lingering PTY's probe remembers beyond the known ones (the leader's): every group a
 * scan saw a member in, the longest unseen forgotten first. A worm's group must be remembered after its pids are gone.
 */
export const MAX_REMEMBERED_GROUPS = 256;
/** Members of a PTY's session listed by pid and command (lingering members, survivors); the count is always exact. */
export const MAX_LISTED_MEMBERS = 10;
/** Characters of a member's command line shown in such a list. */
export const MAX_MEMBER_COMMAND_CHARS = 200;
/**
 * A session scan re-reads /proc/PID/stat only for pids new since the previous listing of /proc, by any scan of this
 * host, and for members (src/streams/session-scanner.ts, ListedSessions); a pid listed in both is the same process,
 * since the kernel hands pids out cyclically and cannot wrap around in this time. Past it, the next scan reads
 * everything again.
 */
export const SCAN_CACHE_MAX_AGE_MS = 1_000;
/**
 * Pids made while one session scan ran that it reads after its listing of /proc (src/streams/session-scanner.ts): a
 * worm that moves each child into a new process group is seen, and stopped, however fast it forks. A machine that
 * makes more processes than this during one scan leaves the scan untrusted to say the session is empty.
 */
export const MAX_CHASED_PIDS = 2_048;
/**
 * Stat files a session scan spread over event-loop turns reads per turn (src/streams/session-scanner.ts): about
 * 1–3 ms of the host's loop at a time, however many processes the machine runs.
 */
export const SCAN_SLICE_PROCESSES = 128;
/** How often the known lingering members of an exited PTY are checked (one /proc/PID/stat read each). */
export const LINGER_POLL_MS = 500;
/** How often a lingering PTY's session gets a full /proc scan (new members made by lingering ones are found then). */
export const LINGER_FULL_SCAN_MS = 5_000;
/**
 * How long the orphan guard (src/engine/orphan-guard.ts) stays after its last PTY has ended, for the next one: an
 * agent often runs PTYs one after another, and starting the guard blocks the host's loop 1.6–2 ms and delays the
 * new PTY's first output by about 1 ms (docs/perf-journal.md). Closing the plugin ends an idle guard at once.
 */
export const ORPHAN_GUARD_LINGER_MS = 30_000;
/**
 * A guard that dies (killed: it never exits on its own while sessions are listed) after running this long is started
 * again at once with the list, since PTYs started while it ran rely on it alone to die with the host. One that dies
 * sooner could not run: it is left for the next PTY to try again, and PTYs meanwhile start behind `setpriv`.
 */
export const ORPHAN_GUARD_RESTART_AFTER_MS = 1_000;
/** How long after spawn we look for script's child (the PTY session leader). */
export const SESSION_LEADER_LOOKUP_MS = 3_000;
/**
 * Output a stream holds back until `started` (its leader not seen yet: /proc is polled every 2 ms where no report
 * comes). Past it the PTY starts at once and learns its leader later: a flood while the lookup runs (up to
 * SESSION_LEADER_LOOKUP_MS) is never held whole in memory. About one buffer bound.
 */
export const MAX_OUTPUT_BEFORE_START_BYTES = 1_048_576;
export const SESSION_LEADER_POLL_MS = 2;
/**
 * With an argv channel, how long the wrapper's pid report is awaited before /proc is polled for the leader too (at
 * once when the channel ends without one). It comes 5–15 ms after the spawn; a poll meanwhile probes pids that do
 * not exist yet, each a thrown ENOENT on the host's thread (2.5 ms of it per spawn, measured on a slow day).
 */
export const LEADER_REPORT_GRACE_MS = 100;
/** Between full /proc scans for script's child; the polls in between probe only the next few pids. */
export const SESSION_LEADER_FULL_SCAN_MS = 50;
/** Bytes the wrapper's report of its pid may take ("4194304\n" at most); more is not a pid. */
export const MAX_PID_REPORT_BYTES = 16;
/** Plugin close (and session deletion) settles everything within this. */
export const CLOSE_TIMEOUT_MS = 27_000;

// ── Notifications ────────────────────────────────────────────────────────────────────────────
export const NOTIFY_TIMEOUT_MS = 5_000;
export const NOTIFY_DESCRIPTION_CHARS = 100;
export const NOTIFY_LAST_LINE_CHARS = 200;
/**
 * Notifications (pty.exit and pty.match) enqueued and not yet delivered or failed, across all sessions (those being
 * delivered count too). At the bound the new one is dropped (and logged); those already waiting are kept.
 */
export const MAX_PENDING_NOTIFICATIONS = 64;

// ── Terminal mode probe (pty_write of a long line) ──────────────────────────────────────────
export const STTY_PROBE_TIMEOUT_MS = 1_000;

// ── Registry gates ───────────────────────────────────────────────────────────────────────────
/** Deleted owner sessions remembered to refuse late spawns; the oldest is forgotten first. */
export const MAX_REMEMBERED_DELETED_OWNERS = 1_024;
/** Tool operations (spawn/write/read/kill) under way at once per owner session; more are refused. */
export const MAX_INFLIGHT_PER_OWNER = 32;
/** Busy sessions the host adapter tracks (to choose between queueing and waking); the oldest is forgotten. */
export const MAX_TRACKED_BUSY_SESSIONS = 1_024;
/** Sessions whose last user message's agent and model the host adapter remembers; the least recent is forgotten. */
export const MAX_TRACKED_SESSION_TURNS = 1_024;
/** Recent messages read to find the agent and model a woken session must keep, when no event told them. */
export const WAKE_LOOKUP_MESSAGES = 20;

// ── Waits (the `wait` of pty_spawn, pty_write and pty_read) and watch rules ──────────────────
/** How long a wait lasts when it names no timeoutMs. */
export const DEFAULT_WAIT_TIMEOUT_MS = 30_000;
/** The longest a single tool call may wait. */
export const MAX_WAIT_TIMEOUT_MS = 300_000;
export const MIN_WAIT_TIMEOUT_MS = 1;
/**
 * New output is matched against a wait's or watch rule's pattern in blocks of about this many characters of whole
 * lines: one engine call per block, line by line only in a block that matched (src/patterns/linear-pattern.ts).
 */
export const MATCH_BLOCK_CHARS = 4_096;
/**
 * A pattern whose every match holds one of a few literal texts is first looked for by those texts, with V8's own
 * string search (src/patterns/required-literals.ts). At most this many texts (one per top-level alternative), each
 * cut to this many characters, keep that search cheap whatever the pattern: past them the engine scans alone.
 */
export const MAX_PREFILTER_LITERALS = 8;
export const MAX_PREFILTER_LITERAL_CHARS = 16;
/** The shortest quiet period a wait accepts: below it, a pause between two chunks of one answer ends the wait. */
export const MIN_QUIET_MS = 50;
/** Lines of the output that arrived during a wait that its result carries (the newest); pty_read from the cursor gives the rest. */
export const MAX_WAIT_OUTPUT_LINES = DEFAULT_READ_LIMIT;
/**
 * The unfinished last line is matched whole after every chunk (prompts end without a newline) while it is at most this
 * long. A longer one is matched whole only once as much output has come since its last test as the line is long (so
 * the cost stays linear in the output, not in the line times its chunks), and once the output pauses
 * (UNFINISHED_LINE_SETTLE_MS). Also how much of the unfinished line a call's mark keeps to tell it changed.
 */
export const MAX_PARTIAL_MATCH_CHARS = 4_096;
/**
 * Cursors handed out on an unfinished line (a prompt) whose text a PTY remembers, so that a wait from such a cursor
 * knows whether the line changed since (CursorMarks): the newest 16, each at most MAX_PARTIAL_MATCH_CHARS.
 */
export const MAX_CURSOR_MARKS = 16;
/** How long the output must pause before a long unfinished line not yet tested whole is (see MAX_PARTIAL_MATCH_CHARS). */
export const UNFINISHED_LINE_SETTLE_MS = 20;
/** Watch rules one PTY may carry. */
export const MAX_WATCH_RULES = 4;
/** At most one pty.match notification per PTY per this interval; matches in between are counted into the next. */
export const MATCH_NOTIFY_INTERVAL_MS = 2_000;
/** The matched line in a pty.match notification is cut at this. */
export const NOTIFY_MATCH_LINE_CHARS = NOTIFY_LAST_LINE_CHARS;

// ── Screen view, named keys, resize (pty_read screen, pty_write input/resize) ───────────────
/** Items in one pty_write `input` list. */
export const MAX_INPUT_ITEMS = 256;
/** How often one `input` key item may repeat (`times`). */
export const MAX_KEY_REPEAT = 100;
/**
 * The pause between the writes of an `input` list's key presses (EncodedInput.presses), so that a program reads each
 * key on its own, as typed: at most MAX_INPUT_ITEMS × MAX_KEY_REPEAT presses, so a call types for a bounded time.
 */
export const KEY_PRESS_GAP_MS = 15;
/**
 * Writes one `input` list may make (its key presses, and the text between them): 128 take about 2 s to type, time the
 * call's wait counts too. More are refused with this limit named; 256 items of 100 presses each took 6.4 minutes.
 */
export const MAX_KEY_PRESSES = 128;
/** Raw characters fed to an emulator per write call; each write's callback is awaited (xterm.js flow control). */
export const SCREEN_FEED_CHUNK_CHARS = 65_536;
/** A backlog of plain output at least this long is entered where what precedes it has scrolled off (see skip-ahead.ts). */
export const SCREEN_SKIP_FROM_CHARS = 65_536;
/**
 * Screen reads a wait on a full-screen program keeps waiting, one per chunk of output, while the emulator is busy with
 * the one before (screen-wait.ts); past this the newest takes the place of the newest waiting.
 */
export const MAX_SCREEN_LOOKS_WAITING = 16;
/** Once output has been quiet this long, an emulator already in use catches up by itself. */
export const SCREEN_IDLE_CATCHUP_MS = 250;
/**
 * Queries a program sent its terminal (cursor position, device status and attributes) waiting for their answers; more
 * sent before those are answered get none (a terminal answers each, but a program that floods them waits for none).
 */
export const MAX_PENDING_TERMINAL_QUERIES = 8;
/**
 * How long a write waits for the answers to the terminal queries the program sent before it (a terminal answers at
 * once, so they come before anything typed after): a program that floods queries must not hold typing up for good.
 */
export const MAX_ANSWER_WAIT_MS = 1_000;
/** Between two rounds of answers to a program's terminal queries (each round runs `stty -a` for the input mode). */
export const MIN_QUERY_ROUND_GAP_MS = 50;
/** How long `stty` may take to resize the terminal. */
export const STTY_RESIZE_TIMEOUT_MS = 2_000;

/**
 * Specimens kept alive between PTYs for their hidden classes (src/shapes/specimens.ts): the last compiled wait or
 * watch patterns, the last emulator of a removed PTY (reset first, so none of its screen stays), the last PTY's
 * finished `script` child process, and the JavaScript objects of its pipes' handles (stdin, stdout, stderr, the argv
 * channel).
 */
export const KEPT_PATTERN_SPECIMENS = 4;
export const KEPT_EMULATOR_SPECIMENS = 1;
export const KEPT_CHILD_SPECIMENS = 1;
export const KEPT_PIPE_HANDLE_SPECIMENS = 4;
