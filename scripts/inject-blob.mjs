// Puts the single-executable blob into a copy of Node with postject, as
// Node's SEA guide does. postject's LIEF rebuilds the binary's PT_NOTE segment
// to add the blob as a note and makes a section header for each note in it,
// but names none of them, and says so once per note on console.warn:
//   warning: Can't find string offset for section name '.note.100'
// (twelve lines for Node 24, stripped or not). The names do not matter: Node
// finds its blob through the program headers (postject-api.h walks the
// PT_NOTE segments with dl_iterate_phdr), never by a section's name, and no
// option of postject's quiets LIEF. So exactly those lines are dropped, and
// every other line postject writes still reaches the build's output.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The one warning dropped: a nameless note section ('.note', '.note.100', …). */
const NAMELESS_NOTE = /^warning: Can't find string offset for section name '\.note(\.\d+)?'\n?$/;

export function isNamelessNoteWarning(text) {
  return NAMELESS_NOTE.test(text);
}

/** postject's inject(), with LIEF's nameless-note warnings left out of the output. */
export async function injectBlob(file, resourceName, blob, options) {
  const { inject } = require('postject');
  const warn = console.warn;
  console.warn = (...args) => {
    if (args.length === 1 && typeof args[0] === 'string' && isNamelessNoteWarning(args[0])) return;
    warn(...args);
  };
  try {
    await inject(file, resourceName, blob, options);
  } finally {
    console.warn = warn;
  }
}
