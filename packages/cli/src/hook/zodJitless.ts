import { config } from 'zod';

// A hook process parses each zod schema (the detector's options and snapshot) once: compiling a
// fast parser for it (`new Function`) costs more than it saves, and far more in a process started
// from the startup snapshot. zod reads the switch when a schema is made: this module is imported
// before any module that makes one.
config({ jitless: true });
