// The reporter of `npm run lint:deps`: dependency-cruiser's own error report,
// with one rule added that dependency-cruiser cannot express (its rules see
// modules, not folders): no-folder-cycles.
//
// no-folder-cycles: no folder of src/ imports a folder that imports it, not
// even through other folders, type imports and lazy import()s included. The
// folders are floors: each builds on the ones below it, so one import running
// back up means a type or a helper sits on the wrong floor (move it below
// both, into plan/ or beside the port that carries it). A folder cycle needs
// no module cycle (a.ts → b/x.ts while b/y.ts → a/z.ts), which is why
// no-import-cycles does not catch it. Each import between two folders of one
// cycle is reported, with the first file that makes it.
//
// test/architecture.test.ts plants one and expects it named.
import errorReporter from '../node_modules/dependency-cruiser/src/report/error.mjs';

const RULE = { name: 'no-folder-cycles', severity: 'error' };
const TEST_FILE = /\.test\.ts$/;

/** src/FOLDER/ of a product module, src/main.ts for the root, undefined for anything else. */
function folderOf(path) {
  if (TEST_FILE.test(path)) return undefined;
  if (path === 'src/main.ts') return path;
  return /^src\/[^/]+\//.exec(path)?.[0];
}

/** Every folder-to-folder import, with the first import (by file) that makes it. */
function folderImports(modules) {
  const imports = new Map();
  for (const module of [...modules].sort((a, b) => a.source.localeCompare(b.source))) {
    const from = folderOf(module.source);
    if (from === undefined) continue;
    for (const dependency of module.dependencies) {
      const to = folderOf(dependency.resolved);
      if (to === undefined || to === from) continue;
      const targets = imports.get(from) ?? new Map();
      imports.set(from, targets);
      if (!targets.has(to)) targets.set(to, { from: module.source, to: dependency.resolved });
    }
  }
  return imports;
}

/** Tarjan's strongly connected components: the component of each folder. */
function componentOf(imports) {
  const index = new Map();
  const low = new Map();
  const component = new Map();
  const stack = [];
  let next = 0;
  const visit = (folder) => {
    index.set(folder, next);
    low.set(folder, next);
    next += 1;
    stack.push(folder);
    for (const to of imports.get(folder)?.keys() ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(folder, Math.min(low.get(folder), low.get(to)));
      } else if (!component.has(to)) {
        low.set(folder, Math.min(low.get(folder), index.get(to)));
      }
    }
    if (low.get(folder) !== index.get(folder)) return;
    for (let member = stack.pop(); ; member = stack.pop()) {
      component.set(member, folder);
      if (member === folder) break;
    }
  };
  for (const folder of imports.keys()) if (!index.has(folder)) visit(folder);
  return component;
}

/** One violation per import between two folders of the same cycle. */
export function findFolderCycles(modules) {
  const imports = folderImports(modules);
  const component = componentOf(imports);
  const violations = [];
  for (const [from, targets] of imports) {
    for (const [to, witness] of targets) {
      if (component.get(from) === component.get(to)) violations.push({ type: 'dependency', rule: RULE, ...witness });
    }
  }
  return violations;
}

export default function report(result) {
  const cycles = findFolderCycles(result.modules);
  const summary = {
    ...result.summary,
    violations: [...result.summary.violations, ...cycles],
    error: result.summary.error + cycles.length,
  };
  return errorReporter({ ...result, summary });
}
