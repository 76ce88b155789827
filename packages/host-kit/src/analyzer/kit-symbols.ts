import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Node, SyntaxKind, type Symbol as MorphSymbol, type Type } from 'ts-morph';

const KIT_PACKAGE = '@tollgate/host-kit';

/**
 * Recognises host-kit's own declarations by symbol, not by the name written
 * at the use site: `import { Get as HttpGet }`, `import * as kit` and user
 * barrels re-exporting the kit all resolve to the same declaration. A
 * declaration is the kit's when the file declaring it belongs to the
 * `@tollgate/host-kit` package (its `dist/*.d.ts` for users, `src/` here).
 */
export class KitSymbols {
  readonly #packageNameOfDir = new Map<string, string | null>();

  /** The kit export `node` (an identifier, property access or type name) refers to, or null. */
  kitNameOf(node: Node): string | null {
    const symbol = resolveAlias(node.getSymbol());
    if (!symbol) return null;
    const declaration = symbol.getDeclarations()[0];
    if (!declaration || !this.isKitFile(declaration.getSourceFile().getFilePath())) return null;
    return symbol.getName();
  }

  /** Whether `type` is the kit's `Int` (a number flavoured with a kit-declared property). */
  isInt(type: Type): boolean {
    if (!type.isIntersection()) return false;
    return type
      .getProperties()
      .some((property) =>
        property
          .getDeclarations()
          .some(
            (declaration) =>
              this.isKitFile(declaration.getSourceFile().getFilePath()) &&
              declaration.getFirstAncestorByKind(SyntaxKind.TypeAliasDeclaration)?.getName() === 'Int',
          ),
      );
  }

  isKitFile(filePath: string): boolean {
    return this.#packageNameOf(dirname(filePath)) === KIT_PACKAGE;
  }

  #packageNameOf(dir: string): string | null {
    const cached = this.#packageNameOfDir.get(dir);
    if (cached !== undefined) return cached;
    const manifest = join(dir, 'package.json');
    const parent = dirname(dir);
    const name = existsSync(manifest) ? readPackageName(manifest) : parent === dir ? null : this.#packageNameOf(parent);
    this.#packageNameOfDir.set(dir, name);
    return name;
  }
}

function resolveAlias(symbol: MorphSymbol | undefined): MorphSymbol | undefined {
  return symbol?.isAlias() ? symbol.getAliasedSymbol() : symbol;
}

function readPackageName(manifestPath: string): string | null {
  try {
    const { name } = JSON.parse(readFileSync(manifestPath, 'utf8')) as { name?: unknown };
    return typeof name === 'string' ? name : null;
  } catch {
    return null;
  }
}

/** The name a call-style decorator invokes (`@Get('/x')`, `@kit.Get('/x')`), resolved to the kit export. */
export function decoratorTarget(decorator: Node): Node | undefined {
  if (!Node.isDecorator(decorator)) return undefined;
  const expression = decorator.getExpression();
  return Node.isCallExpression(expression) ? expression.getExpression() : expression;
}
