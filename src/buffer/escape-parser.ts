import { CsiParams } from './csi-params.js';
import { OscTitle } from './osc-title.js';
import { ModeTracker } from './mode-tracker.js';
import type { TerminalModes } from './terminal-modes.js';

/** What a sequence does to the line it is read on. */
export interface LineEffects {
  /** A C0 control inside an ESC or CSI sequence: a VT parser executes it there (a `\n` mid-sequence ends the line). */
  control(unit: number): void;
  /** A CSI sequence that applies to the line (neither private nor ignored): its final byte and first parameter (-1: none). */
  lineCsi(final: number, param: number): void;
  /** The program asked the terminal something a terminal answers on its input (see TerminalQuery). */
  query(query: TerminalQuery): void;
  /** The cursor saved (DECSC, `ESC 7`; SCOSC, `CSI s`; 1049 set) or restored (DECRC, `ESC 8`; SCORC, `CSI u`; 1049 reset). */
  lineCursor(save: boolean): void;
  /** A full reset (`ESC c`): the screen is cleared, and what it showed goes to the scrollback, as tmux keeps it. */
  fullReset(): void;
}

/**
 * What a program may ask its terminal, which answers on the program's input: device status (`CSI 5 n`), the cursor's
 * position (`CSI 6 n`), primary and secondary device attributes (`CSI c`, `CSI > c`). prompt_toolkit (IPython) and
 * others ask and wait for the answer, and warn, or stall, without one.
 */
export type TerminalQuery = 'status' | 'cursor' | 'primary-attributes' | 'secondary-attributes';

const enum State {
  Ground,
  Escape,
  EscapeIntermediate,
  Csi,
  /** OSC: ends at BEL, ST or `ESC \`. */
  Osc,
  /** DCS, SOS, PM, APC: end at ST or `ESC \`. */
  EscapeString,
}

const BEL = 0x07;
const CAN = 0x18;
const SUB = 0x1a;
const ESC = 0x1b;
const SPACE = 0x20;
const DEL = 0x7f;
const C1_DCS = 0x90;
const C1_SOS = 0x98;
const C1_CSI = 0x9b;
const C1_ST = 0x9c;
const C1_OSC = 0x9d;
const C1_PM = 0x9e;
const C1_APC = 0x9f;
/** `m`: the final of an SGR sequence (colors and attributes). */
const SGR_FINAL = 0x6d;
/** `CSI … n`: a device status request. */
const DSR_FINAL = 0x6e;
/** `CSI … c`: a device attributes request. */
const DA_FINAL = 0x63;
const SET_MODE = 0x68; // h
const RESET_MODE = 0x6c; // l
const SO = 0x0e;
const SI = 0x0f;
const C1_HTS = 0x88;
/** DEC private modes that switch to the alternate screen and back; 1049 also saves and restores the cursor. */
const SCREEN_MODES: ReadonlySet<number> = new Set([47, 1047, 1049]);
const SAVES_CURSOR = 1049;
/** The application keypad, as DECSET 66 and as `ESC =` / `ESC >` set it. */
const KEYPAD_MODE = 66;
/** `ESC` finals that invoke a G level into GL (LS2, LS3, LS3R, LS2R, LS1R), as xterm.js takes them. */
const INVOKING_FINALS: Readonly<Record<number, number>> = { 0x6e: 2, 0x6f: 3, 0x7c: 3, 0x7d: 2, 0x7e: 1 };

/** Where a parser starts: the screen shown and the modes (terminal-modes.ts), fresh by default. */
export interface ParserStart {
  readonly alternate: boolean;
  readonly modes: TerminalModes;
}

/**
 * The escape-sequence state machine of the line renderer, one UTF-16 unit at a time: CSI, OSC, DCS/SOS/PM/APC,
 * two-byte and charset escapes, and their 8-bit C1 forms. A sequence longer than the bound is abandoned, and what
 * follows is text again. It keeps what the renderer needs beyond the line: every switch to the alternate screen
 * and back (and a full reset, which leaves it), the modes a screen's restart gives back (ModeTracker), and whether
 * anything but an SGR went by.
 */
export class EscapeParser {
  private state = State.Ground;
  private sequenceChars = 0;
  private readonly csiParams = new CsiParams();
  private readonly tracker: ModeTracker;
  private readonly osc = new OscTitle();
  /** The one intermediate of an `ESC` sequence being read (`(` of `ESC ( 0`), 0 for none, -1 for more than one. */
  private escIntermediate = 0;
  /** Anything but an SGR was read since the renderer last looked (see LineRenderer.takeOnlyText). */
  notOnlyText = false;

  constructor(
    private readonly maxSequenceChars: number,
    private readonly effects: LineEffects,
    start?: ParserStart,
  ) {
    this.tracker = new ModeTracker(start?.modes, start?.alternate);
  }

  /** A cursor restore brought back a cursor saved before this parser's start (ModeTracker.restoredEarlierSave). */
  get restoredEarlierSave(): boolean {
    return this.tracker.restoredEarlierSave;
  }

  /** The modes as of what was read so far (the same object until one changes). */
  get modes(): TerminalModes {
    return this.tracker.snapshot();
  }

  /**
   * A control read as text or inside an ESC or CSI sequence, once the line has taken it: SO, SI and HTS change
   * modes a restart gives back.
   */
  control(unit: number): void {
    if (unit === SO) this.tracker.invoke(1);
    else if (unit === SI) this.tracker.invoke(0);
    else if (unit === C1_HTS) this.tracker.tabSet();
  }

  /** Whether a sequence is under way. */
  get inSequence(): boolean {
    return this.state !== State.Ground;
  }

  /** Whether the program is on the alternate screen, from every switch and full reset it wrote. */
  get alternateScreen(): boolean {
    return this.tracker.alternateScreen;
  }

  /** A unit read as text that may start a sequence (ESC, or a C1 CSI, OSC or string): whether it did. */
  start(unit: number): boolean {
    switch (unit) {
      case ESC:
        this.enterEscape();
        return true;
      case C1_CSI:
        this.enterCsi();
        this.sequenceChars = 1;
        return true;
      case C1_OSC:
        this.enterOsc();
        this.sequenceChars = 1;
        return true;
      case C1_DCS:
      case C1_SOS:
      case C1_PM:
      case C1_APC:
        this.state = State.EscapeString;
        this.sequenceChars = 1;
        return true;
      default:
        return false;
    }
  }

  /**
   * A unit read inside a sequence. False: the sequence took it. True: the sequence is over and the unit is text,
   * to be read again.
   */
  consume(unit: number): boolean {
    // Only an SGR is text to a screen: `ESC [` and CSI bytes pass here, and the CSI path says so once it ends.
    const csiByte =
      this.state === State.Csi ? unit >= SPACE && unit < DEL : this.state === State.Escape && unit === 0x5b;
    if (!csiByte) this.notOnlyText = true;
    if (++this.sequenceChars > this.maxSequenceChars) {
      this.notOnlyText = true;
      this.state = State.Ground;
      return true;
    }
    if (unit === ESC) {
      // Inside a string this starts its `ESC \` terminator; anywhere else it starts over. Either way an OSC is over.
      if (this.state === State.Osc) this.endOsc();
      this.enterEscape();
      return false;
    }
    if (unit === CAN || unit === SUB) {
      this.state = State.Ground;
      return false;
    }
    if (this.state === State.Osc) {
      if (unit === BEL || unit === C1_ST) {
        this.endOsc();
        this.state = State.Ground;
      } else {
        this.osc.put(unit);
      }
      return false;
    }
    if (this.state === State.EscapeString) {
      if (unit === C1_ST) this.state = State.Ground;
      return false;
    }
    // Escape and CSI: C0 controls still act (a VT parser executes them mid-sequence), DEL is ignored,
    // and anything past ASCII cannot belong to the sequence, so it ends it and is read as text.
    if (unit === DEL) return false;
    if (unit > DEL) {
      this.state = State.Ground;
      return true;
    }
    if (unit < SPACE) {
      this.effects.control(unit);
    } else if (this.state === State.Escape) {
      this.escape(unit);
    } else if (this.state === State.EscapeIntermediate) {
      if (unit < 0x30) {
        this.escIntermediate = -1;
      } else {
        this.state = State.Ground;
        if (this.escIntermediate > 0)
          this.tracker.designate(String.fromCharCode(this.escIntermediate), String.fromCharCode(unit));
      }
    } else {
      this.csi(unit);
    }
    return false;
  }

  /** The terminal was resized here (ModeTracker.resized). */
  resized(): void {
    this.tracker.resized();
  }

  /** The stream ends: a sequence still open is dropped. */
  abandon(): void {
    this.state = State.Ground;
  }

  private enterEscape(): void {
    this.state = State.Escape;
    this.sequenceChars = 1;
    this.escIntermediate = 0;
  }

  private enterOsc(): void {
    this.state = State.Osc;
    this.osc.start();
  }

  /** An OSC ended well: a title it sets is one of the things a restart gives back. */
  private endOsc(): void {
    if (this.osc.end()) this.tracker.setTitle(this.osc);
  }

  private enterCsi(): void {
    this.state = State.Csi;
    this.csiParams.start();
  }

  private escape(unit: number): void {
    switch (unit) {
      case 0x5b: // [
        this.enterCsi();
        return;
      case 0x5d: // ]
        this.enterOsc();
        return;
      case 0x50: // P
      case 0x58: // X
      case 0x5e: // ^
      case 0x5f: // _
        this.state = State.EscapeString;
        return;
      case 0x63: // c: a full reset, which leaves the alternate screen
        this.tracker.fullReset();
        this.state = State.Ground;
        this.effects.fullReset();
        return;
      default:
        // `ESC ( B` and friends carry intermediates before their final; `ESC \`, `ESC 7` … end here.
        if (unit < 0x30) {
          this.state = State.EscapeIntermediate;
          this.escIntermediate = unit;
          return;
        }
        this.state = State.Ground;
        this.escapeFinal(unit);
    }
  }

  /** A two-character escape: the ones that change modes a restart gives back. */
  private escapeFinal(unit: number): void {
    const level = INVOKING_FINALS[unit];
    if (level !== undefined) {
      this.tracker.invoke(level);
      return;
    }
    switch (unit) {
      case 0x48: // H: HTS, a tab stop at the cursor
        this.tracker.tabSet();
        return;
      case 0x37: // 7: DECSC
        this.tracker.saveCursor();
        this.effects.lineCursor(true);
        return;
      case 0x38: // 8: DECRC
        this.tracker.restoreCursor();
        this.effects.lineCursor(false);
        return;
      case 0x3d: // =: DECKPAM
      case 0x3e: // >: DECKPNM
        this.tracker.privateMode(KEYPAD_MODE, unit === 0x3d);
        return;
      default:
        return;
    }
  }

  private csi(unit: number): void {
    if (unit < 0x40) {
      this.csiParams.take(unit);
      return;
    }
    this.state = State.Ground;
    const params = this.csiParams;
    params.end();
    if (unit === SGR_FINAL && params.appliesToLine) return;
    this.notOnlyText = true;
    if (unit === DSR_FINAL || unit === DA_FINAL) this.query(unit);
    if (params.privateModes) {
      if (unit === SET_MODE || unit === RESET_MODE) this.privateModes(unit === SET_MODE);
    } else if (params.plainWith(0)) {
      this.ansiCsi(unit);
      this.effects.lineCsi(unit, params.firstParam);
    } else if (params.plainWith(0x21) && unit === 0x70) {
      this.tracker.softReset(); // `CSI ! p`: DECSTR
    }
  }

  /** A device status or attributes request (see TerminalQuery); other forms of `n` and `c` are no query of ours. */
  private query(final: number): void {
    const params = this.csiParams;
    const first = params.firstParam;
    if (final === DSR_FINAL) {
      if (params.plainWith(0) && (first === 5 || first === 6)) this.effects.query(first === 5 ? 'status' : 'cursor');
    } else if (first <= 0 && params.length <= 1) {
      if (params.plainWith(0)) this.effects.query('primary-attributes');
      else if (params.markedWith(0x3e)) this.effects.query('secondary-attributes');
    }
  }

  /** DECSET / DECRST, each mode of the list in turn. */
  private privateModes(set: boolean): void {
    const params = this.csiParams;
    for (let i = 0; i < params.length; i++) {
      const mode = params.at(i);
      if (SCREEN_MODES.has(mode)) {
        // 1049 saves the cursor before the switch and restores it after the switch back, as xterm.js does: on the
        // normal screen (a second reset, `tput rmcup` run twice) it restores it all the same.
        if (set && mode === SAVES_CURSOR && !this.tracker.alternateScreen) this.effects.lineCursor(true);
        this.tracker.switchScreen(set, mode === SAVES_CURSOR);
        if (!set && mode === SAVES_CURSOR) this.effects.lineCursor(false);
      } else {
        this.tracker.privateMode(mode, set);
      }
    }
  }

  /** The CSI sequences with no marker or intermediate that change modes a restart gives back. */
  private ansiCsi(final: number): void {
    const params = this.csiParams;
    switch (final) {
      case SET_MODE:
      case RESET_MODE:
        for (let i = 0; i < params.length; i++) this.tracker.mode(params.at(i), final === SET_MODE);
        return;
      case 0x72: // r: DECSTBM
        this.tracker.scrollRegion(params.length, params.at(0), params.at(1));
        return;
      case 0x67: // g: TBC
        this.tracker.tabClear(params.firstParam);
        return;
      case 0x73: // s: save the cursor (and the set printing uses)
        this.tracker.saveCursor();
        return;
      case 0x75: // u: restore it
        this.tracker.restoreCursor();
        return;
      default:
        return;
    }
  }
}
