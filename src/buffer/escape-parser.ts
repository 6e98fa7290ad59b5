import { CsiParams } from './csi-params.js';

/** What a sequence does to the line it is read on. */
export interface LineEffects {
  /** A C0 control inside an ESC or CSI sequence: a VT parser executes it there (a `\n` mid-sequence ends the line). */
  control(unit: number): void;
  /** A CSI sequence that applies to the line (neither private nor ignored): its final byte and first parameter (-1: none). */
  lineCsi(final: number, param: number): void;
}

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

/**
 * The escape-sequence state machine of the line renderer, one UTF-16 unit at a time: CSI, OSC, DCS/SOS/PM/APC,
 * two-byte and charset escapes, and their 8-bit C1 forms. A sequence longer than the bound is abandoned, and what
 * follows is text again. It keeps what the renderer needs beyond the line: every switch to the alternate screen
 * and back (and a full reset, which leaves it), and whether anything but an SGR went by.
 */
export class EscapeParser {
  private state = State.Ground;
  private sequenceChars = 0;
  private readonly csiParams = new CsiParams();
  private onAlternate = false;
  /** Anything but an SGR was read since the renderer last looked (see LineRenderer.takeOnlyText). */
  notOnlyText = false;

  constructor(
    private readonly maxSequenceChars: number,
    private readonly effects: LineEffects,
  ) {}

  /** Whether a sequence is under way. */
  get inSequence(): boolean {
    return this.state !== State.Ground;
  }

  /** Whether the program is on the alternate screen, from every switch and full reset it wrote. */
  get alternateScreen(): boolean {
    return this.onAlternate;
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
        this.state = State.Osc;
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
      // Inside a string this starts its `ESC \` terminator; anywhere else it starts over.
      this.enterEscape();
      return false;
    }
    if (unit === CAN || unit === SUB) {
      this.state = State.Ground;
      return false;
    }
    if (this.state === State.Osc) {
      if (unit === BEL || unit === C1_ST) this.state = State.Ground;
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
      if (unit >= 0x30) this.state = State.Ground;
    } else {
      this.csi(unit);
    }
    return false;
  }

  /** The stream ends: a sequence still open is dropped. */
  abandon(): void {
    this.state = State.Ground;
  }

  private enterEscape(): void {
    this.state = State.Escape;
    this.sequenceChars = 1;
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
        this.state = State.Osc;
        return;
      case 0x50: // P
      case 0x58: // X
      case 0x5e: // ^
      case 0x5f: // _
        this.state = State.EscapeString;
        return;
      case 0x63: // c: a full reset, which leaves the alternate screen
        this.onAlternate = false;
        this.state = State.Ground;
        return;
      default:
        // `ESC ( B` and friends carry intermediates before their final; `ESC \`, `ESC 7` … end here.
        this.state = unit < 0x30 ? State.EscapeIntermediate : State.Ground;
    }
  }

  private csi(unit: number): void {
    if (unit < 0x40) {
      this.csiParams.take(unit);
      return;
    }
    this.state = State.Ground;
    if (unit !== SGR_FINAL || !this.csiParams.appliesToLine) this.notOnlyText = true;
    const screen = this.csiParams.screenSwitch(unit);
    if (screen !== undefined) this.onAlternate = screen;
    else if (this.csiParams.appliesToLine) this.effects.lineCsi(unit, this.csiParams.firstParam);
  }
}
