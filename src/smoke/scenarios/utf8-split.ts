import type { LinesRead, RawRead, SpawnResult } from '../../protocol/tool-results.js';
import { expectEqual, expectThat } from '../expect.js';
import { ended } from '../harness.js';
import type { Scenario } from '../scenario.js';

export const utf8Split: Scenario = {
  name: 'utf8-split',
  summary:
    "a UTF-8 character split across output chunks (printf '\\342'; sleep 0.1; printf '\\202\\254') reads back as €",
  async run(h) {
    const { session } = await h.session('ses_smoke_utf8');
    const pty = await session.call<SpawnResult>('pty_spawn', {
      command: 'sh',
      args: [
        '-c',
        "printf 'euro:\\342'; sleep 0.1; printf '\\202\\254\\n'; printf '\\360\\237'; sleep 0.1; printf '\\231\\202\\n'",
      ],
      description: 'split UTF-8',
    });
    await ended(session, pty.id);
    const read = await session.call<LinesRead>('pty_read', { id: pty.id });
    expectEqual(
      read.lines,
      [
        { line: 1, text: 'euro:€' },
        { line: 2, text: '🙂' },
      ],
      'lines of the split characters',
    );
    const raw = await session.call<RawRead>('pty_read', { id: pty.id, raw: true });
    expectThat(
      raw.text,
      (t) => !t.includes('\ufffd') && t === 'euro:€\n🙂\n',
      'the raw text "euro:€\\n🙂\\n" without U+FFFD',
      'raw output',
    );
  },
};
