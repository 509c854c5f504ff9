const rec: Record<string, number> = {
  0: 8.39,
  1: 8.53,
  2: 4.17,
  3: 4.13,
  4: 4.22,
  5: 4.18,
  6: 1.23,
  7: 1.27,
  8: 1.15,
  9: 1.18,
  10: 1.22,
  11: 1.24,
  12: 1.25,
  13: 1.46,
  14: 1.27,
  15: 1.34,
};
type U = { id: string; ms: number };
function lpt(units: U[], k: number) {
  const b = Array.from({ length: k }, () => ({ units: [] as U[], ms: 0 }));
  for (const u of [...units].sort((a, z) => z.ms - a.ms)) {
    const l = b.reduce((m, x) => (x.ms < m.ms ? x : m));
    l.units.push(u);
    l.ms += u.ms;
  }
  return b;
}
function refine(b: { units: U[]; ms: number }[]) {
  for (let it = 0; it < 200; it++) {
    b.sort((x, y) => y.ms - x.ms);
    const h = b[0]!;
    let best: { v: number; apply: () => void } | null = null;
    for (const o of b.slice(1))
      for (const u of h.units) {
        const cands: [number, () => void][] = [];
        {
          const nv = Math.max(h.ms - u.ms, o.ms + u.ms);
          cands.push([
            nv,
            () => {
              h.units.splice(h.units.indexOf(u), 1);
              o.units.push(u);
              h.ms -= u.ms;
              o.ms += u.ms;
            },
          ]);
        }
        for (const v of o.units)
          if (u.ms > v.ms) {
            const nv = Math.max(h.ms - u.ms + v.ms, o.ms - v.ms + u.ms);
            cands.push([
              nv,
              () => {
                h.units.splice(h.units.indexOf(u), 1, v);
                o.units.splice(o.units.indexOf(v), 1, u);
                h.ms += v.ms - u.ms;
                o.ms += u.ms - v.ms;
              },
            ]);
          }
        for (const [nv, apply] of cands)
          if (nv < h.ms - 1e-9 && (!best || nv < best.v)) best = { v: nv, apply };
      }
    if (!best) break;
    best.apply();
  }
  return b;
}
for (const c of [0, 0.05, 0.1, 0.2]) {
  const units = Object.entries(rec).map(([id, s]) => ({ id, ms: s + c }));
  const b = refine(lpt(units, 4));
  console.log(
    c,
    b.map((x) => `{${x.units.map((u) => Math.round(rec[u.id]!)).join(',')}}=${x.ms.toFixed(2)}`).join(' '),
  );
}
