import { execFileSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The brief's rule, "JSDoc on every exported symbol and option (with defaults)", checked with the
 * TypeScript compiler API over every package's sources: an exported symbol, a member of an exported
 * interface, object type or class (a class member documented on the interface it implements counts),
 * and an optional member of an exported `…Options` interface, whose JSDoc must say its default.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const files = execFileSync('git', ['ls-files', 'packages/*/src/**.ts'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
  .map((file) => resolve(root, file));
const program = ts.createProgram(files, {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  skipLibCheck: true,
  noEmit: true,
  types: ['node'],
});
const checker = program.getTypeChecker();

/** The node's JSDoc blocks, as text (`''`: none). */
function docOf(node: ts.Node): string {
  return ts
    .getJSDocCommentsAndTags(node)
    .map((doc) => doc.getText())
    .join('\n');
}

/** Whether `member` of `owner` is documented on an interface `owner` implements or a class it extends. */
function inherited(owner: ts.ClassDeclaration, member: ts.ClassElement): boolean {
  const name = member.name?.getText();
  if (name === undefined) return false;
  return (owner.heritageClauses ?? []).some((clause) =>
    clause.types.some((type) => {
      const property = checker.getTypeAtLocation(type).getProperty(name);
      return property !== undefined && property.getDocumentationComment(checker).length > 0;
    }),
  );
}

/** `where: what` for each exported symbol or member without JSDoc, and each option without its default. */
function undocumented(): string[] {
  const found: string[] = [];
  for (const file of files) {
    const source = program.getSourceFile(file);
    if (source === undefined) continue;
    const at = (node: ts.Node) =>
      `${file.slice(root.length + 1)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
    const members = (
      owner: string,
      list: readonly ts.Node[],
      options: boolean,
      cls?: ts.ClassDeclaration,
    ) => {
      for (const member of list) {
        const name = (member as { name?: ts.Node }).name;
        if (name === undefined || ts.isPrivateIdentifier(name)) continue;
        if (ts.isConstructorDeclaration(member) || ts.isClassStaticBlockDeclaration(member)) continue;
        const modifiers = ts.canHaveModifiers(member) ? (ts.getModifiers(member) ?? []) : [];
        if (
          modifiers.some(
            (m) => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword,
          )
        )
          continue;
        const doc = docOf(member);
        if (doc === '' && !(cls !== undefined && inherited(cls, member as ts.ClassElement)))
          found.push(`${at(member)}: ${owner}.${name.getText()} has no JSDoc`);
        else if (options && (member as { questionToken?: ts.Node }).questionToken && !/default/i.test(doc))
          found.push(`${at(member)}: ${owner}.${name.getText()} does not say its default`);
      }
    };
    const literal = (owner: string, type: ts.TypeNode | undefined): void => {
      if (type === undefined) return;
      if (ts.isTypeLiteralNode(type)) members(owner, type.members, false);
      else if (ts.isIntersectionTypeNode(type) || ts.isUnionTypeNode(type))
        for (const part of type.types) literal(owner, part);
      else if (ts.isParenthesizedTypeNode(type)) literal(owner, type.type);
    };
    for (const statement of source.statements) {
      const modifiers = ts.canHaveModifiers(statement) ? (ts.getModifiers(statement) ?? []) : [];
      if (!modifiers.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) continue;
      const name = ts.isVariableStatement(statement)
        ? statement.declarationList.declarations.map((d) => d.name.getText()).join(', ')
        : ((statement as { name?: ts.Node }).name?.getText() ?? 'default');
      if (docOf(statement) === '') found.push(`${at(statement)}: ${name} has no JSDoc`);
      if (ts.isInterfaceDeclaration(statement)) members(name, statement.members, name.endsWith('Options'));
      else if (ts.isTypeAliasDeclaration(statement)) literal(name, statement.type);
      else if (ts.isClassDeclaration(statement)) members(name, statement.members, false, statement);
    }
  }
  return found;
}

describe('exported API', () => {
  it('has JSDoc on every exported symbol and member, and every option says its default', () => {
    expect(undocumented()).toEqual([]);
  });
});
