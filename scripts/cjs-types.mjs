// dist/index.d.cts: the package's types for require() (the "require" condition of package.json's
// exports). TypeScript reads dist/index.d.ts as an ES module (the package is "type": "module"), so
// a CommonJS project (`import x = require(...)`, or `import` compiled to require) under
// `moduleResolution` node16 or nodenext was refused it (TS1471). This file is CommonJS and names
// every export of index.d.ts: its types through a type-only re-export (resolution-mode import, as
// TypeScript 5.3+ allows in CommonJS), each value as a constant of the ES module's value's type,
// and a class's (or another value's) type of the same name as an alias.
import ts from 'typescript';

const ESM = `'./index.js', { with: { 'resolution-mode': 'import' } }`;

/** The source of dist/index.d.cts for the package's value exports `valueNames` (dist/index.d.ts read with TypeScript). */
export function indexCommonJsTypes(indexDts, valueNames) {
  const program = ts.createProgram([indexDts], { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, noEmit: true, skipLibCheck: true });
  const checker = program.getTypeChecker();
  const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(indexDts));
  const exported = new Map(checker.getExportsOfModule(moduleSymbol).map((s) => [s.name, s]));
  const lines = [
    '// The package for require(), as dist/index.d.ts describes it (scripts/cjs-types.mjs says why).',
    `type Esm = typeof import(${ESM});`,
    `export type * from './index.js' with { 'resolution-mode': 'import' };`,
  ];
  for (const name of valueNames) {
    const symbol = exported.get(name);
    if (symbol === undefined) throw new Error(`dist/index.d.ts does not declare the export ${name}`);
    const flags = (symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol).flags;
    lines.push(`export declare const ${name}: Esm['${name}'];`);
    // The declaration above hides the re-export's type of this name: a class's instance type, say.
    if (flags & ts.SymbolFlags.Type) lines.push(`export type ${name} = import(${ESM}).${name};`);
  }
  return `${lines.join('\n')}\n`;
}
