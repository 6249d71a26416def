// Drawn floor plans for the floor-plan rule's evaluation (eval/photos.ts): black walls, door arcs,
// room labels and dimension lines on white, at several layouts and sizes, as a listing's plan
// drawing is. Rendered here from SVG by sharp (the image process itself refuses SVG input).
import sharp from 'sharp';

export async function drawnFloorPlans(): Promise<Buffer[]> {
  const plans: Buffer[] = [];
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8) / 2 ** 24;
  for (let n = 0; n < 12; n++) {
    const [w, h] = [800 + Math.round(random() * 400), 600 + Math.round(random() * 300)];
    const cols = 2 + Math.floor(random() * 3);
    const rows = 1 + Math.floor(random() * 2);
    const walls: string[] = [
      `<rect x="40" y="40" width="${w - 80}" height="${h - 80}" fill="none" stroke="#111" stroke-width="10"/>`,
    ];
    const labels = ['BEDROOM', 'KITCHEN', 'LIVING', 'BATH', 'DINING', 'HALL'];
    for (let c = 1; c < cols; c++) {
      const x = 40 + ((w - 80) * c) / cols;
      walls.push(`<line x1="${x}" y1="40" x2="${x}" y2="${h - 40}" stroke="#111" stroke-width="6"/>`);
    }
    for (let r = 1; r < rows; r++) {
      const y = 40 + ((h - 80) * r) / rows;
      walls.push(`<line x1="40" y1="${y}" x2="${w - 40}" y2="${y}" stroke="#111" stroke-width="6"/>`);
    }
    for (let c = 0; c < cols; c++)
      for (let r = 0; r < rows; r++) {
        const x = 40 + ((w - 80) * (c + 0.5)) / cols;
        const y = 40 + ((h - 80) * (r + 0.5)) / rows;
        walls.push(
          `<text x="${x}" y="${y}" font-family="sans-serif" font-size="${18 + Math.round(random() * 10)}" text-anchor="middle" fill="#222">${labels[(c + r * cols + n) % labels.length]}</text>`,
          `<text x="${x}" y="${y + 26}" font-family="sans-serif" font-size="14" text-anchor="middle" fill="#444">${(3 + random() * 3).toFixed(1)} x ${(3 + random() * 2).toFixed(1)} m</text>`,
          `<path d="M ${x - 30} ${y + 60} a 30 30 0 0 1 30 -30" fill="none" stroke="#333" stroke-width="2"/>`,
        );
      }
    walls.push(
      `<line x1="40" y1="${h - 15}" x2="${w - 40}" y2="${h - 15}" stroke="#555" stroke-width="1.5"/>`,
    );
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="100%" height="100%" fill="${n % 3 === 0 ? '#fdfdf8' : '#ffffff'}"/>${walls.join('')}</svg>`;
    const image = sharp(Buffer.from(svg));
    plans.push(await (n % 2 ? image.jpeg({ quality: 80 }) : image.png()).toBuffer());
  }
  return plans;
}
