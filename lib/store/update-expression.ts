/**
 * Builds a DynamoDB UpdateExpression from named parts, with placeholders for every
 * name and value so attribute names never collide with reserved words.
 */
export interface UpdateParts {
  UpdateExpression: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues: Record<string, unknown>;
}

export function buildUpdate(set: Record<string, unknown>, remove: string[] = []): UpdateParts {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const setParts = Object.entries(set).map(([name, value], i) => {
    names[`#s${i}`] = name;
    values[`:s${i}`] = value;
    return `#s${i} = :s${i}`;
  });
  const removeParts = remove.map((name, i) => {
    names[`#r${i}`] = name;
    return `#r${i}`;
  });
  const clauses = [
    setParts.length > 0 ? `SET ${setParts.join(", ")}` : "",
    removeParts.length > 0 ? `REMOVE ${removeParts.join(", ")}` : "",
  ].filter(Boolean);
  return {
    UpdateExpression: clauses.join(" "),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}
