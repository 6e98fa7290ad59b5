import { orphanGuard } from '../../src/engine/orphan-guard.js';

// The shared orphan guard lingers 30 s after its last PTY, for the next one. A test file that ran PTYs through it
// would hand it on to the next file in the same jest worker, whose cleanup checks count the worker's children
// (a CI run failed that way). Each file stops its own idle guard when it is done.
afterAll(() => orphanGuard.stopIfIdle());
