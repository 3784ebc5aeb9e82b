import type { ColumnSpecs } from '../column/column-type.ts';

/**
 * A table that holds one row per item of a record's nested list (an invoice's lines), keyed by
 * the parent's business key (`source_system`, `source_reference`) and the item's position
 * (`line_no`, from 1). The list is a `json` column of the pipeline (`list`), so the row hash
 * covers it: when a parent changes, in the upsert's transaction, its child rows are deleted and
 * written again from the new list; an unchanged parent's rows are not touched. So no line removed
 * from a corrected export survives. (dlt's child tables key their rows by `_dlt_parent_id`, a
 * hash of the parent row, and `_dlt_list_idx`, from 0; idem keys them by the parent's business
 * key, which a join on the target uses as it is.)
 */
export interface ChildTableDefinition {
  /** The child table (snake_case), made by `idem migrate --make` (`createChildTable`). */
  readonly table: string;
  /** The pipeline's `json` column that holds the list: an array of objects, or null for none. */
  readonly list: string;
  /**
   * The child's business columns, declared as the pipeline's are; each is read from the item's
   * field of its name, with the column's rules (a value that breaks one fails the run, naming the
   * parent, the line and the column).
   */
  readonly columns: ColumnSpecs;
}
