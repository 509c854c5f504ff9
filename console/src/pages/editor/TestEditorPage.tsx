export function TestEditorPage() {
  return <h1>Edit test</h1>;
}
export default TestEditorPage;
