/**
 * JSON.parse with every number kept as the exact text it was written as. Price APIs answer
 * `{"usd": 0.99987}`; JSON.parse would make that a float before we could read it exactly (Node
 * 20 has no reviver source access), so numbers outside strings are quoted first.
 */
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

export function parseJsonExact(text: string): unknown {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      // Copy the string as is, escapes included.
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(text);
      if (!m) return JSON.parse(text); // not JSON: let JSON.parse say why
      out += `"${m[0]}"`;
      i += m[0].length;
    } else {
      out += c;
      i += 1;
    }
  }
  return JSON.parse(out);
}
