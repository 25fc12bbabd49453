import { List, ListItemButton, ListItemText, Paper } from '@mui/material';
import AttachFileIcon from '@mui/icons-material/AttachFile';
import { preview, type QuickAnswer } from '../api/quick-answers';

interface Props {
  answers: QuickAnswer[];
  /** The highlighted row (arrows move it). */
  active: number;
  onPick: (answer: QuickAnswer) => void;
}

/** The list of quick answers above the ticket input: shortcode and the message cut at 90 characters. */
export function QuickAnswers({ answers, active, onPick }: Props) {
  if (answers.length === 0) return null;
  return (
    <Paper elevation={4} sx={{ position: 'absolute', bottom: '100%', left: 0, right: 0, maxHeight: 260, overflowY: 'auto', zIndex: 2 }} data-testid="quick-answers">
      <List dense role="listbox">
        {answers.map((answer, i) => (
          <ListItemButton
            key={answer.id}
            selected={i === active}
            role="option"
            aria-selected={i === active}
            onMouseDown={(event) => event.preventDefault()}
            onClick={() => onPick(answer)}
            data-testid={`quick-answer-${answer.id}`}
          >
            {answer.isMedia && <AttachFileIcon fontSize="small" sx={{ mr: 1 }} color="action" />}
            <ListItemText primary={`/${answer.shortcode}`} secondary={preview(answer.message)} />
          </ListItemButton>
        ))}
      </List>
    </Paper>
  );
}
