import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray } from 'class-validator';

export class SetLabelsDto {
  /** The new labels; normalised (trimmed, lowercased, de-duplicated) before they are checked. */
  @ApiProperty({ type: [String], example: ['pii', 'health'] })
  @IsArray()
  @ArrayMaxSize(256)
  sensitivity_labels: unknown[];
}
