export { CommentsPanel } from './CommentsPanel.tsx';
export { CommentPins } from './CommentPins.tsx';
export { CommentTool } from './CommentTool.tsx';
export {
  useComposing,
  useFocusedThread,
  useHasComments,
  useUnread,
  useCommentsSend,
  useWentTo,
} from './comments-selectors.ts';
