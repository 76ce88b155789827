import { AgentTool, Controller, Get, Post } from '@tollgate/host-kit';

interface NewNote {
  /** The note's text, in Markdown. */
  text: string;
  /** Where the note is filed. */
  folder: {
    /** Folder name. */
    name: string;
  };
  pinned?: boolean;
}

@Controller('/notes')
export class NotesController {
  /**
   * Reads one note.
   * @param id - The note id.
   * @param format Output format, `md` or `html`.
   */
  @Get('/:id')
  @AgentTool({ description: 'Reads a note.' })
  getNote(id: string, format?: string, verbose?: boolean) {
    return { id, format, verbose };
  }

  @Post()
  @AgentTool({ description: 'Creates a note.', allowWrite: true })
  createNote(note: NewNote) {
    return note;
  }
}
