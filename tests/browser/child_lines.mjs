// What the browser tests share: waiting for a line from a child process.
import { createInterface } from 'node:readline';

// The match of the first line of `child`'s standard output that `pattern`
// matches; rejects after 60 s, or when the child exits first, naming `what`.
export function firstLine(child, pattern, what) {
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    const timer = setTimeout(() => reject(new Error(what + ': nothing after 60 s')), 60000);
    rl.on('line', (line) => {
      const m = line.match(pattern);
      if (m) { clearTimeout(timer); resolve(m); }
    });
    child.on('exit', (code) => reject(new Error(what + ' exited with ' + code)));
  });
}
