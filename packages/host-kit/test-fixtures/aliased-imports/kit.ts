// A user barrel re-exporting the kit under other names.
export { Post as HttpPost, AgentTool as Tool } from '@tollgate/host-kit';
