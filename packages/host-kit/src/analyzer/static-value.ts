import { Node, SyntaxKind } from 'ts-morph';

export type StaticValue = string | number | boolean | null | StaticValue[] | { [key: string]: StaticValue };

export type StaticRead = { ok: true; value: StaticValue } | { ok: false; node: Node };

/**
 * Reads a decorator argument without running code: literals, arrays and
 * object literals of literals, through `as const`, `satisfies` and
 * parentheses. Anything else (a variable, a call, a spread) is reported with
 * the node that stopped the read, so the diagnostic points at it.
 */
export function readStatic(node: Node): StaticRead {
  if (Node.isStringLiteral(node) || Node.isNoSubstitutionTemplateLiteral(node)) {
    return { ok: true, value: node.getLiteralValue() };
  }
  if (Node.isNumericLiteral(node)) return { ok: true, value: node.getLiteralValue() };
  if (Node.isTrueLiteral(node)) return { ok: true, value: true };
  if (Node.isFalseLiteral(node)) return { ok: true, value: false };
  if (Node.isNullLiteral(node)) return { ok: true, value: null };
  if (Node.isPrefixUnaryExpression(node) && node.getOperatorToken() === SyntaxKind.MinusToken) {
    const operand = node.getOperand();
    if (Node.isNumericLiteral(operand)) return { ok: true, value: -operand.getLiteralValue() };
  }
  if (Node.isAsExpression(node) || Node.isSatisfiesExpression(node) || Node.isParenthesizedExpression(node)) {
    return readStatic(node.getExpression());
  }
  if (Node.isArrayLiteralExpression(node)) return readArray(node.getElements());
  if (Node.isObjectLiteralExpression(node)) return readObject(node.getProperties());
  return { ok: false, node };
}

function readArray(elements: Node[]): StaticRead {
  const value: StaticValue[] = [];
  for (const element of elements) {
    const read = readStatic(element);
    if (!read.ok) return read;
    value.push(read.value);
  }
  return { ok: true, value };
}

function readObject(properties: Node[]): StaticRead {
  const value: { [key: string]: StaticValue } = {};
  for (const property of properties) {
    if (!Node.isPropertyAssignment(property)) return { ok: false, node: property };
    const nameNode = property.getNameNode();
    if (!Node.isIdentifier(nameNode) && !Node.isStringLiteral(nameNode)) return { ok: false, node: nameNode };
    const initializer = property.getInitializer();
    if (!initializer) return { ok: false, node: property };
    const read = readStatic(initializer);
    if (!read.ok) return read;
    value[Node.isIdentifier(nameNode) ? nameNode.getText() : nameNode.getLiteralValue()] = read.value;
  }
  return { ok: true, value };
}
